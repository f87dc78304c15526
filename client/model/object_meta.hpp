// ObjectMeta and OwnerReference: the metadata every typed projection carries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/compact_string.hpp"
#include "client/model/interned.hpp"
#include "client/model/managed_fields.hpp"
#include "client/model/schema_fwd.hpp"
#include "client/model/time.hpp"

namespace rg::client {

struct OwnerReference {
  CompactString api_version;
  CompactString kind;
  CompactString name;
  CompactString uid;
  bool controller = false;
  bool block_owner_deletion = false;

  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

/// A hash of every member (for the pool of Interned owner lists).
std::size_t hash_value(const OwnerReference& owner) noexcept;

/// The fields of metav1.ObjectMeta an operator reads. managedFields are kept only by kinds whose
/// metadata is read with object_meta_with_managed_fields() (Deployment), and even there only as
/// far as ManagedFieldsEntry projects them.
/// Timestamps are metav1.Time: to the second, RFC 3339 on the wire ("2026-11-29T14:00:00Z");
/// an unset creationTimestamp is the epoch (WallTime{}).
/// Strings are CompactStrings (read them as std::string_views, compare them with strings, write
/// std::string(meta.name) where a std::string is needed): an informer caches one per object.
/// generateName, labels, ownerReferences and finalizers are Interned: read like the string, the
/// Labels and the std::vectors they hold, and held once for all the objects that have equal ones
/// (every pod of a ReplicaSet; finalizers are few distinct lists, and 8 bytes less than a vector
/// in every object).
struct ObjectMeta {
  CompactString name;
  Interned<CompactString> generate_name;  ///< the same for every pod of a ReplicaSet
  CompactString namespace_;
  CompactString uid;
  CompactString resource_version;
  std::int64_t generation = 0;
  WallTime creation_timestamp;
  std::optional<WallTime> deletion_timestamp;
  std::optional<std::int64_t> deletion_grace_period_seconds;
  Interned<Labels> labels;
  Labels annotations;
  Interned<std::vector<OwnerReference>> owner_references;
  Interned<std::vector<std::string>> finalizers;
  std::vector<ManagedFieldsEntry> managed_fields;
};

namespace detail {
const StructDesc& schema_of(Tag<OwnerReference>);
const StructDesc& schema_of(Tag<ObjectMeta>);  ///< without managedFields
/// ObjectMeta's schema with managedFields.
const StructDesc& object_meta_with_managed_fields();
}  // namespace detail

}  // namespace rg::client
