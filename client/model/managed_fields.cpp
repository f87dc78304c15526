// Schemas of the managedFields projection, and the spec.replicas ownership question.
#include "client/model/managed_fields.hpp"

#include <algorithm>

#include "client/model/schema.hpp"

namespace rg::client {

bool owns_spec_replicas(const std::vector<ManagedFieldsEntry>& managed_fields,
                        std::string_view manager) {
  return std::any_of(managed_fields.begin(), managed_fields.end(), [&](const auto& entry) {
    return entry.manager == manager && entry.owns_spec_replicas();
  });
}

namespace detail {

const StructDesc& schema_of(Tag<FieldsV1Leaf>) {
  static constexpr StructDesc desc{"FieldsV1Leaf", {}};
  return desc;
}

const StructDesc& schema_of(Tag<FieldsV1Spec>) {
  static constexpr FieldDesc fields[] = {
      field<&FieldsV1Spec::replicas>("f:replicas"),
  };
  static constexpr StructDesc desc{"FieldsV1Spec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<FieldsV1>) {
  static constexpr FieldDesc fields[] = {
      field<&FieldsV1::spec>("f:spec"),
  };
  static constexpr StructDesc desc{"FieldsV1", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ManagedFieldsEntry>) {
  static constexpr FieldDesc fields[] = {
      field<&ManagedFieldsEntry::manager>("manager"),
      field<&ManagedFieldsEntry::operation>("operation"),
      field<&ManagedFieldsEntry::subresource>("subresource"),
      field<&ManagedFieldsEntry::fields_v1>("fieldsV1"),
  };
  static constexpr StructDesc desc{"ManagedFieldsEntry", fields};
  return desc;
}

}  // namespace detail
}  // namespace rg::client
