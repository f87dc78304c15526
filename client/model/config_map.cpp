// Schema of the ConfigMap projection.
#include "client/model/config_map.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<ConfigMap>) {
  static constexpr FieldDesc fields[] = {
      field<&ConfigMap::metadata>("metadata", true),
      field<&ConfigMap::data>("data"),
      field<&ConfigMap::binary_data>("binaryData"),
      field<&ConfigMap::immutable>("immutable"),
  };
  static constexpr StructDesc desc{"ConfigMap", fields, "v1", "ConfigMap"};
  return desc;
}

}  // namespace rg::client::detail
