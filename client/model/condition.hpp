// Condition (meta/v1): the condition type custom resources put in status.conditions, and
// apimachinery's SetStatusCondition / FindStatusCondition (pkg/api/meta/conditions.go) over it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/schema_fwd.hpp"
#include "client/model/time.hpp"

namespace rg::client {

struct Condition {
  std::string type;    ///< UpperCamelCase, e.g. "Ready"
  std::string status;  ///< "True", "False" or "Unknown"
  std::int64_t observed_generation = 0;
  WallTime last_transition_time{};  ///< when status last changed (to the second); unset: now
  std::string reason{};             ///< UpperCamelCase
  std::string message{};
  friend bool operator==(const Condition&, const Condition&) = default;
};

/// The condition of `type`, or nullptr.
const Condition* find_status_condition(const std::vector<Condition>& conditions,
                                       std::string_view type);

/// Adds `condition` or updates the one of its type: lastTransitionTime moves (to the condition's
/// own, else `now`) only when status changes; reason, message and observedGeneration are always
/// taken. Returns whether anything changed.
bool set_status_condition(std::vector<Condition>& conditions, Condition condition, WallTime now);

namespace detail {
const StructDesc& schema_of(Tag<Condition>);
}  // namespace detail

}  // namespace rg::client
