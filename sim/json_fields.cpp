// Kubernetes JSON field helpers (see json_fields.hpp).
#include "sim/json_fields.hpp"

#include <utility>

namespace rg::sim {
namespace json = boost::json;

json::object& object_at(json::object& object, std::string_view key) {
  auto& value = object[key];
  if (!value.is_object()) value = json::object();
  return value.get_object();
}

json::array& array_at(json::object& object, std::string_view key) {
  auto& value = object[key];
  if (!value.is_array()) value = json::array();
  return value.get_array();
}

const json::object* find_object(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_object() : nullptr;
}

const json::array* find_array(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_array() : nullptr;
}

const json::string* find_string(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_string() : nullptr;
}

std::string string_at(const json::object& object, std::string_view key) {
  return std::string(string_view_at(object, key));
}

std::string_view string_view_at(const json::object& object, std::string_view key) {
  const auto* value = find_string(object, key);
  return value != nullptr ? std::string_view(*value) : std::string_view();
}

std::int64_t int_at(const json::object& object, std::string_view key, std::int64_t fallback) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return fallback;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  if (value->is_double()) return static_cast<std::int64_t>(value->get_double());
  return fallback;
}

const json::object* find_condition(const json::array& conditions, std::string_view type) {
  for (const auto& condition : conditions)
    if (const auto* object = condition.if_object(); object && string_at(*object, "type") == type)
      return object;
  return nullptr;
}

json::object* find_condition(json::array& conditions, std::string_view type) {
  return const_cast<json::object*>(find_condition(std::as_const(conditions), type));
}

}  // namespace rg::sim
