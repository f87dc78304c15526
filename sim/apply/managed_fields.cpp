// metadata.managedFields entries from and to JSON (see managed_fields.hpp).
#include "sim/apply/managed_fields.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "sim/json_fields.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

/// An optional string member, as the entry's `std::string` holds it: "" when absent.
std::string_view optional_string(const json::object& item, std::string_view key) {
  const auto* value = item.if_contains(key);
  return value != nullptr && value->is_string() ? std::string_view(value->get_string())
                                                : std::string_view();
}

}  // namespace

bool same_owner(const ManagedFieldsEntry& a, const ManagedFieldsEntry& b) {
  return a.manager == b.manager && a.operation == b.operation && a.subresource == b.subresource &&
         (a.operation == "Apply" || a.api_version == b.api_version);
}

ManagedFieldsEntry owner_of(const json::object& item) {
  ManagedFieldsEntry entry;
  entry.manager = string_at(item, "manager");
  entry.operation = string_at(item, "operation");
  entry.api_version = string_at(item, "apiVersion");
  entry.time = string_at(item, "time");
  entry.subresource = string_at(item, "subresource");
  return entry;
}

std::optional<ManagedFieldsEntry> entry_of(const json::value& item) {
  const auto* object = item.if_object();
  const auto* fields = object != nullptr ? object->if_contains("fieldsV1") : nullptr;
  if (fields == nullptr) return std::nullopt;
  ManagedFieldsEntry entry = owner_of(*object);
  if (entry.operation != "Apply" && entry.operation != "Update") return std::nullopt;
  try {
    entry.fields = FieldSet::from_json(*fields);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  return entry;
}

std::vector<ManagedFieldsEntry> managed_fields_of(const json::object& object) {
  std::vector<ManagedFieldsEntry> entries;
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return entries;
  const auto* list = metadata->get_object().if_contains("managedFields");
  if (list == nullptr || !list->is_array()) return entries;
  for (const auto& item : list->get_array())
    if (auto entry = entry_of(item)) entries.push_back(std::move(*entry));
  return entries;
}

json::object encode_entry(const ManagedFieldsEntry& entry, const json::storage_ptr& storage) {
  json::object item(storage);
  item.reserve(7);
  item.emplace("manager", entry.manager);
  item.emplace("operation", entry.operation);
  item.emplace("apiVersion", entry.api_version);
  if (!entry.time.empty()) item.emplace("time", entry.time);
  item.emplace("fieldsType", "FieldsV1");
  item.emplace("fieldsV1", entry.fields.to_json(storage));
  if (!entry.subresource.empty()) item.emplace("subresource", entry.subresource);
  return item;
}

bool is_encoded_entry(const json::value& item) {
  const auto* object = item.if_object();
  if (object == nullptr) return false;
  auto it = object->begin();
  const auto end = object->end();
  // The next member is `key`, a string (not empty when `optional`); an optional one may be
  // absent.
  auto string_member = [&](std::string_view key, bool optional) {
    if (it == end || it->key() != key) return optional;
    const auto* value = it->value().if_string();
    if (value == nullptr || (optional && value->empty())) return false;
    ++it;
    return true;
  };
  if (!string_member("manager", false) || !string_member("operation", false) ||
      !string_member("apiVersion", false) || !string_member("time", true))
    return false;
  const auto operation = object->at("operation").get_string();
  if (operation != "Apply" && operation != "Update") return false;
  const auto* fields_type =
      it != end && it->key() == "fieldsType" ? it->value().if_string() : nullptr;
  if (fields_type == nullptr || *fields_type != "FieldsV1") return false;
  if (++it == end || it->key() != "fieldsV1" || !FieldSet::is_encoded(it->value())) return false;
  ++it;
  return string_member("subresource", true) && it == end;
}

void sort_entries(json::array& items) {
  auto key = [](const json::value& item) {
    const auto& object = item.get_object();
    return std::make_tuple(optional_string(object, "operation"), optional_string(object, "time"),
                           optional_string(object, "manager"),
                           optional_string(object, "apiVersion"),
                           optional_string(object, "subresource"));
  };
  auto before = [&](const json::value& a, const json::value& b) { return key(a) < key(b); };
  if (!std::is_sorted(items.begin(), items.end(), before))
    std::sort(items.begin(), items.end(), before);
}

void store_entries(json::object& object, const std::vector<ManagedFieldsEntry>& entries) {
  auto& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object(object.storage());
  json::array items(object.storage());
  for (const auto& entry : entries)
    if (!entry.fields.empty()) items.push_back(encode_entry(entry, object.storage()));
  sort_entries(items);
  if (items.empty())
    metadata.get_object().erase("managedFields");
  else
    metadata.get_object()["managedFields"] = std::move(items);
}

}  // namespace rg::sim::apply
