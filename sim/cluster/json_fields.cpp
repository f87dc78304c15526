// Condition writes and timestamps (see json_fields.hpp).
#include "sim/cluster/json_fields.hpp"

#include <chrono>
#include <utility>

#include "client/model/time.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

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

std::string now_time() { return client::format_time(std::chrono::system_clock::now()); }
std::string now_micro_time() { return client::format_micro_time(std::chrono::system_clock::now()); }

void set_count(json::object& status, std::string_view key, std::int64_t value) {
  if (value == 0)
    status.erase(key);
  else
    status[key] = value;
}

}  // namespace rg::sim::cluster
