// ManagedFieldsEntry (metav1.ManagedFieldsEntry), projected to the one question an operator asks
// of it: which managers own spec.replicas. fieldsV1 is kept only down to f:spec.f:replicas; the
// rest of each field set is skipped while decoding, never built.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "client/model/compact_string.hpp"
#include "client/model/schema_fwd.hpp"

namespace rg::client {

/// A field in a field set, with nothing kept below it (`"f:replicas": {}`).
struct FieldsV1Leaf {};

/// A field set's "f:spec", down to "f:replicas".
struct FieldsV1Spec {
  std::optional<FieldsV1Leaf> replicas;
};

/// A field set (fieldsV1), down to "f:spec".
struct FieldsV1 {
  std::optional<FieldsV1Spec> spec;
};

struct ManagedFieldsEntry {
  CompactString manager;
  CompactString operation;    ///< "Apply" or "Update"
  CompactString subresource;  ///< empty for the object itself; "scale", "status"
  FieldsV1 fields_v1;

  bool owns_spec_replicas() const { return fields_v1.spec && fields_v1.spec->replicas; }
};

/// Whether `manager` is among the owners of spec.replicas: the last write that changed the
/// field was its own (an update that changes a field takes it from every other manager).
bool owns_spec_replicas(const std::vector<ManagedFieldsEntry>& managed_fields,
                        std::string_view manager);

namespace detail {
const StructDesc& schema_of(Tag<FieldsV1Leaf>);
const StructDesc& schema_of(Tag<FieldsV1Spec>);
const StructDesc& schema_of(Tag<FieldsV1>);
const StructDesc& schema_of(Tag<ManagedFieldsEntry>);
}  // namespace detail

}  // namespace rg::client
