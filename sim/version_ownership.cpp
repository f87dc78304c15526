// Field ownership across served versions (see version_ownership.hpp).
#include "sim/version_ownership.hpp"

#include <boost/json.hpp>

#include <stdexcept>

#include "sim/apply/object_fields.hpp"
#include "sim/json_fields.hpp"
#include "sim/version_conversion.hpp"

namespace rg::sim {

namespace json = boost::json;

void release_changed_fields(const ResourceType& other, std::string_view subresource,
                            const json::object& before, json::object& after) {
  auto* entries = object_at(after, "metadata").if_contains("managedFields");
  if (entries == nullptr || !entries->is_array()) return;
  const std::string api_version = other.group_version();
  bool recorded_there = false;
  for (const auto& entry : entries->get_array())
    if (const auto* item = entry.if_object();
        item != nullptr && string_at(*item, "apiVersion") == api_version)
      recorded_there = true;
  if (!recorded_there) return;

  const auto changes =
      apply::compare(convert_to(other, before), convert_to(other, after), other.kind);
  apply::FieldSet released = changes.changed.union_with(changes.removed);
  if (subresource == "status")
    released = released.only_prefix({"f:status"});
  else if (other.has_status())
    released = released.without_prefix({"f:status"});
  if (released.empty()) return;

  json::array kept;
  for (auto& entry : entries->get_array()) {
    auto* item = entry.if_object();
    if (item != nullptr && string_at(*item, "apiVersion") == api_version &&
        item->contains("fieldsV1")) {
      try {
        const auto fields = apply::FieldSet::from_json(item->at("fieldsV1")).difference(released);
        if (fields.empty()) continue;
        (*item)["fieldsV1"] = fields.to_json();
      } catch (const std::invalid_argument&) {
        // Not a field set: left as it is, as the field manager leaves entries it cannot read.
      }
    }
    kept.push_back(std::move(entry));
  }
  if (kept.empty())
    object_at(after, "metadata").erase("managedFields");
  else
    *entries = std::move(kept);
}

}  // namespace rg::sim
