// Schema of ListMeta.
#include "client/model/list_meta.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<ListMeta>) {
  static constexpr FieldDesc fields[] = {
      field<&ListMeta::resource_version>("resourceVersion"),
      field<&ListMeta::continue_>("continue"),
      field<&ListMeta::remaining_item_count>("remainingItemCount"),
  };
  static constexpr StructDesc desc{"ListMeta", fields};
  return desc;
}

}  // namespace rg::client::detail
