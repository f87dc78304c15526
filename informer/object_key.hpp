// KubeObject (anything with an rg::client::ObjectMeta `metadata`) and its cache key:
// "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

#include "client/model/object_meta.hpp"

namespace rg::informer {

/// A Kubernetes object the informer can cache: it carries a `metadata` member of type
/// rg::client::ObjectMeta (every typed projection in client/model does).
template <class T>
concept KubeObject = std::same_as<std::remove_cvref_t<decltype(std::declval<const T&>().metadata)>,
                                  client::ObjectMeta>;

/// The two halves of a cache key. `namespace_` is empty for cluster-scoped objects.
struct ObjectName {
  std::string namespace_;
  std::string name;
  friend bool operator==(const ObjectName&, const ObjectName&) = default;
};

/// "namespace/name", or "name" when the namespace is empty (no validation).
std::string namespace_key(std::string_view namespace_name, std::string_view name);

/// "namespace/name", or "name" when the namespace is empty.
/// Throws std::invalid_argument when metadata.name is empty (the object cannot be cached).
std::string meta_namespace_key(const client::ObjectMeta& meta);

template <KubeObject T>
std::string meta_namespace_key(const T& object) {
  return meta_namespace_key(object.metadata);
}

/// Splits a key made by meta_namespace_key. Throws std::invalid_argument for a key with more
/// than one '/', an empty name or an empty namespace before the '/'.
ObjectName split_meta_namespace_key(std::string_view key);

}  // namespace rg::informer
