// How lists and structs of the built-in kinds merge: the one table behind strategic merge patch
// (patchStrategy/patchMergeKey) and server-side apply (listType/listMapKeys, structType), taken
// from the k8s.io/api core/v1, apps/v1 and meta/v1 types. Lists not in the table are atomic, as
// they are for kinds without a schema (custom resources without x-kubernetes-list-type).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rg::sim::apply {

enum class ListKind {
  kAtomic,  ///< replaced as a whole, one owner
  kSet,     ///< a set of scalars: merged by value (metadata.finalizers)
  kMap,     ///< a list of objects merged by key fields (containers by name)
};

struct ListType {
  ListKind kind = ListKind::kAtomic;
  /// Server-side apply's listMapKeys (kMap): e.g. {"containerPort", "protocol"}.
  std::vector<std::string_view> keys;
  /// Strategic merge's patchMergeKey: one field, e.g. "containerPort" ("" unless kMap).
  std::string_view merge_key;
  /// Defaults of key fields a list item may leave out (protocol: TCP), as the schema's defaults.
  std::string_view defaulted_key;
  std::string_view key_default;
};

/// The list at `path` (field names from the object's root, list items skipped: {"spec",
/// "template", "spec", "containers"}) of an object of `kind`.
ListType list_type(std::string_view kind, std::span<const std::string> path);

/// True for structs and maps that apply treats as one value (structType/mapType atomic, such as
/// a LabelSelector in spec.selector).
bool is_atomic_struct(std::string_view kind, std::span<const std::string> path);

}  // namespace rg::sim::apply
