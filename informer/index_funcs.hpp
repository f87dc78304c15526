// Index functions for the Indexer: an index maps each object to zero or more index values
// (client-go's IndexFunc). The namespace index is built in; the rest are one-liners for users:
//   indexer.add_indexers({{"spec.nodeName", index_by<Pod>([](const Pod& p) { return
//   p.spec.node_name; })}});
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "informer/object_key.hpp"

namespace rg::informer {

template <KubeObject T>
using IndexFunc = std::function<std::vector<std::string>(const T&)>;

/// Index name -> index function.
template <KubeObject T>
using Indexers = std::map<std::string, IndexFunc<T>, std::less<>>;

inline constexpr std::string_view kNamespaceIndex = "namespace";

/// metadata.namespace ("" for cluster-scoped objects), as client-go's MetaNamespaceIndexFunc.
template <KubeObject T>
std::vector<std::string> namespace_index_func(const T& object) {
  return {std::string(meta::namespace_(object))};
}

/// The indexers every Indexer starts with: {"namespace": namespace_index_func}.
template <KubeObject T>
Indexers<T> default_indexers() {
  Indexers<T> indexers;
  indexers.emplace(kNamespaceIndex, &namespace_index_func<T>);
  return indexers;
}

/// An index with one value per object taken from `field` (a callable T -> any string type);
/// objects for which it yields "" are not indexed (e.g. unscheduled pods under spec.nodeName).
template <KubeObject T, class Field>
IndexFunc<T> index_by(Field field) {
  return [field = std::move(field)](const T& object) {
    std::vector<std::string> values;
    const auto& value = field(object);
    if (const std::string_view text(value); !text.empty()) values.emplace_back(text);
    return values;
  };
}

/// Index by the value of one label; objects without the label are not indexed.
template <KubeObject T>
IndexFunc<T> label_index_func(std::string label_key) {
  return [label_key = std::move(label_key)](const T& object) {
    std::vector<std::string> values;
    const auto& labels = meta::labels(object);
    if (auto it = labels.find(label_key); it != labels.end()) values.push_back(it->second);
    return values;
  };
}

/// Index by the UID of the controlling owner (ownerReferences[controller=true]).
template <KubeObject T>
std::vector<std::string> controller_uid_index_func(const T& object) {
  if (const std::string_view uid = meta::controller_uid(object); !uid.empty()) {
    return {std::string(uid)};
  }
  return {};
}

}  // namespace rg::informer
