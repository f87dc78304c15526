// ObjectEncoder: how list responses and watch events render stored objects -- as plain JSON
// (the stored bytes, untouched) or as Table rows for `kubectl get`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sim/resource_table.hpp"
#include "sim/responses.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

class ObjectEncoder {
 public:
  virtual ~ObjectEncoder() = default;
  /// The list document up to and including the opening of its items (or rows) array.
  virtual std::string list_header(std::uint64_t resource_version, std::string_view continue_token,
                                  std::optional<std::int64_t> remaining_item_count) = 0;
  /// One list item (no separator).
  virtual void list_item(const ObjectPtr& object, ChunkBuilder& out) = 0;
  std::string_view list_footer() const { return "]}"; }
  /// One watch event line: {"type":..,"object":..}\n.
  virtual void watch_event(std::string_view type, const ObjectPtr& object, ChunkBuilder& out) = 0;
};

/// The plain JSON encoder: list items are the stored bytes; watch objects get kind/apiVersion.
std::unique_ptr<ObjectEncoder> make_json_encoder(const ResourceType& type);
/// The Table encoder (table.cpp): one row per object with the type's printer columns.
std::unique_ptr<ObjectEncoder> make_table_encoder(const ResourceType& type,
                                                  std::string table_api_version,
                                                  std::string include_object);

/// `"metadata":{"resourceVersion":"N"[,"continue":"..."][,"remainingItemCount":N]}`.
std::string list_metadata(std::uint64_t resource_version, std::string_view continue_token,
                          std::optional<std::int64_t> remaining_item_count);

}  // namespace rg::sim
