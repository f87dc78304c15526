// ObjectMeta and OwnerReference: the metadata every typed projection carries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/schema_fwd.hpp"

namespace rg::client {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

/// The fields of metav1.ObjectMeta an operator reads. managedFields are not kept.
/// Timestamps stay in their RFC 3339 wire form ("2026-11-29T14:00:00Z").
struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  std::int64_t generation = 0;
  std::string creation_timestamp;
  std::optional<std::string> deletion_timestamp;
  std::optional<std::int64_t> deletion_grace_period_seconds;
  Labels labels;
  Labels annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
};

namespace detail {
const StructDesc& schema_of(Tag<OwnerReference>);
const StructDesc& schema_of(Tag<ObjectMeta>);
}  // namespace detail

}  // namespace rg::client
