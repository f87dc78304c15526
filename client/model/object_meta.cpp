// Schemas of ObjectMeta and OwnerReference (metav1), shared by every typed projection.
#include "client/model/object_meta.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

#include "client/model/schema.hpp"

namespace rg::client {

std::size_t hash_value(const OwnerReference& owner) noexcept {
  std::size_t seed = detail::content_hash(owner.api_version);
  for (const std::string_view text : {owner.kind.view(), owner.name.view(), owner.uid.view()}) {
    seed = detail::combine_hash(seed, detail::content_hash(text));
  }
  return detail::combine_hash(
      seed, (owner.controller ? 2U : 0U) | (owner.block_owner_deletion ? 1U : 0U));
}

}  // namespace rg::client

namespace rg::client::detail {

const StructDesc& schema_of(Tag<OwnerReference>) {
  static constexpr FieldDesc fields[] = {
      field<&OwnerReference::api_version>("apiVersion"),
      field<&OwnerReference::kind>("kind"),
      field<&OwnerReference::name>("name"),
      field<&OwnerReference::uid>("uid"),
      field<&OwnerReference::controller>("controller"),
      field<&OwnerReference::block_owner_deletion>("blockOwnerDeletion"),
  };
  static constexpr StructDesc desc{"OwnerReference", fields};
  return desc;
}

namespace {

constexpr FieldDesc kObjectMetaFields[] = {
    field<&ObjectMeta::name>("name"),
    field<&ObjectMeta::generate_name>("generateName"),
    field<&ObjectMeta::namespace_>("namespace"),
    field<&ObjectMeta::uid>("uid"),
    field<&ObjectMeta::resource_version>("resourceVersion"),
    field<&ObjectMeta::generation>("generation"),
    field<&ObjectMeta::creation_timestamp>("creationTimestamp"),
    field<&ObjectMeta::deletion_timestamp>("deletionTimestamp"),
    field<&ObjectMeta::deletion_grace_period_seconds>("deletionGracePeriodSeconds"),
    field<&ObjectMeta::labels>("labels"),
    field<&ObjectMeta::annotations>("annotations"),
    field<&ObjectMeta::owner_references>("ownerReferences"),
    field<&ObjectMeta::finalizers>("finalizers"),
};

template <std::size_t N>
constexpr std::array<FieldDesc, N + 1> with_field(const FieldDesc (&fields)[N], FieldDesc extra) {
  std::array<FieldDesc, N + 1> all{};
  std::copy(std::begin(fields), std::end(fields), all.begin());
  all[N] = extra;
  return all;
}

}  // namespace

const StructDesc& schema_of(Tag<ObjectMeta>) {
  static constexpr StructDesc desc{"ObjectMeta", kObjectMetaFields};
  return desc;
}

const StructDesc& object_meta_with_managed_fields() {
  static constexpr auto fields =
      with_field(kObjectMetaFields, field<&ObjectMeta::managed_fields>("managedFields"));
  static constexpr StructDesc desc{"ObjectMeta", fields};
  return desc;
}

}  // namespace rg::client::detail
