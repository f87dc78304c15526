// Kubernetes JSON field helpers (see json_fields.hpp).
#include "sim/cluster/json_fields.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace rg::sim::cluster {
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

std::string string_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
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

bool set_condition(json::array& conditions, std::string_view type, std::string_view status,
                   std::string_view reason, std::string_view message, std::string_view now) {
  auto* condition = find_condition(conditions, type);
  if (condition == nullptr) {
    json::object added{{"type", type}, {"status", status}, {"lastTransitionTime", now}};
    if (!reason.empty()) added["reason"] = reason;
    if (!message.empty()) added["message"] = message;
    conditions.push_back(std::move(added));
    return true;
  }
  bool changed = false;
  if (string_at(*condition, "status") != status) {
    (*condition)["status"] = status;
    (*condition)["lastTransitionTime"] = now;
    changed = true;
  }
  for (auto [key, value] : {std::pair{"reason", reason}, std::pair{"message", message}}) {
    if (value.empty() || string_at(*condition, key) == value) continue;
    (*condition)[key] = value;
    changed = true;
  }
  return changed;
}

namespace {

std::string format_time(bool micro) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[40];
  std::size_t length = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
  if (micro) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
        1000000;
    std::snprintf(buffer + length, sizeof buffer - length, ".%06lldZ",
                  static_cast<long long>(micros));
  } else {
    std::snprintf(buffer + length, sizeof buffer - length, "Z");
  }
  return buffer;
}

}  // namespace

std::string now_time() { return format_time(false); }
std::string now_micro_time() { return format_time(true); }

}  // namespace rg::sim::cluster
