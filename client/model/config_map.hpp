// ConfigMap (core/v1): configuration data as string keys and values. The whole object is kept
// (data, binaryData, immutable), so a read-modify-write through update() loses nothing.
#pragma once

#include <optional>

#include "client/labels/labels.hpp"
#include "client/model/object_meta.hpp"

namespace rg::client {

/// Encode with to_json (client/model/codec.hpp) for create and update.
struct ConfigMap {
  ObjectMeta metadata;
  Labels data;                    ///< key -> UTF-8 value (a sorted map of strings)
  Labels binary_data;             ///< key -> base64 text, as on the wire
  std::optional<bool> immutable;  ///< true: data can no longer change
};

namespace detail {
const StructDesc& schema_of(Tag<ConfigMap>);
}  // namespace detail

}  // namespace rg::client
