// Condition and status-count writes and the two timestamp formats, for the simulated cluster's
// controllers (field and condition readers are in sim/json_fields.hpp).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/json_fields.hpp"

namespace rg::sim::cluster {

/// Sets status/reason/message of the condition `type` (appending it when absent). Moves
/// lastTransitionTime to `now` only when the status changes, as every Kubernetes component
/// does. Returns true when anything changed. `reason`/`message` empty leave those untouched.
bool set_condition(boost::json::array& conditions, std::string_view type, std::string_view status,
                   std::string_view reason, std::string_view message, std::string_view now);

/// Sets the status count `key` (replicas, readyReplicas, ...), removing it when 0: the controllers'
/// status types omit zero counts (omitempty).
void set_count(boost::json::object& status, std::string_view key, std::int64_t value);

/// Now as a metav1.Time ("2026-11-29T14:00:00Z") and a metav1.MicroTime
/// ("2026-11-29T14:00:00.123456Z").
std::string now_time();
std::string now_micro_time();

}  // namespace rg::sim::cluster
