// ListMeta: the metadata of a LIST response (resourceVersion to watch from, continue token for
// the next page, and the count of items left when the server knows it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/model/schema_fwd.hpp"

namespace rg::client {

struct ListMeta {
  std::string resource_version;
  std::string continue_;  ///< empty on the last page
  std::optional<std::int64_t> remaining_item_count;
};

namespace detail {
const StructDesc& schema_of(Tag<ListMeta>);
}  // namespace detail

}  // namespace rg::client
