// The cache key of a KubeObject (kube_object.hpp): "namespace/name", or "name" for cluster-scoped
// objects (client-go's MetaNamespaceKeyFunc).
#pragma once

#include <string>
#include <string_view>

#include "client/model/object_meta.hpp"
#include "informer/kube_object.hpp"

namespace rg::informer {

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
/// The same from an object's namespace and name.
std::string meta_namespace_key(std::string_view namespace_name, std::string_view name);

template <KubeObject T>
std::string meta_namespace_key(const T& object) {
  return meta_namespace_key(meta::namespace_(object), meta::name(object));
}

/// meta_namespace_key written over `key`, whose capacity is reused (a lookup key built once per
/// store write without allocating). Throws as meta_namespace_key does, leaving `key` unchanged.
void assign_meta_namespace_key(std::string& key, std::string_view namespace_name,
                               std::string_view name);

template <KubeObject T>
void assign_meta_namespace_key(std::string& key, const T& object) {
  assign_meta_namespace_key(key, meta::namespace_(object), meta::name(object));
}

/// Splits a key made by meta_namespace_key. Throws std::invalid_argument for a key with more
/// than one '/', an empty name or an empty namespace before the '/'.
ObjectName split_meta_namespace_key(std::string_view key);

}  // namespace rg::informer
