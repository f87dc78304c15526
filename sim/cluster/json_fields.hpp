// Small readers and writers of Kubernetes JSON objects for the simulated cluster's controllers:
// fields that may be absent, conditions keyed by type, and the two timestamp formats.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace rg::sim::cluster {

/// The member `key` of `object` as an object, created (or replaced) when absent or not one.
boost::json::object& object_at(boost::json::object& object, std::string_view key);
/// The member `key` as an array, created (or replaced) when absent or not one.
boost::json::array& array_at(boost::json::object& object, std::string_view key);

/// The member `key` when it is an object / a string / an integer; null, "" or `fallback`.
const boost::json::object* find_object(const boost::json::object& object, std::string_view key);
const boost::json::array* find_array(const boost::json::object& object, std::string_view key);
std::string string_at(const boost::json::object& object, std::string_view key);
std::int64_t int_at(const boost::json::object& object, std::string_view key,
                    std::int64_t fallback = 0);

/// The condition of `type` in `conditions`, or null.
const boost::json::object* find_condition(const boost::json::array& conditions,
                                          std::string_view type);
boost::json::object* find_condition(boost::json::array& conditions, std::string_view type);

/// Sets status/reason/message of the condition `type` (appending it when absent). Moves
/// lastTransitionTime to `now` only when the status changes, as every Kubernetes component
/// does. Returns true when anything changed. `reason`/`message` empty leave those untouched.
bool set_condition(boost::json::array& conditions, std::string_view type, std::string_view status,
                   std::string_view reason, std::string_view message, std::string_view now);

/// Now as a metav1.Time ("2026-11-29T14:00:00Z") and a metav1.MicroTime
/// ("2026-11-29T14:00:00.123456Z").
std::string now_time();
std::string now_micro_time();

}  // namespace rg::sim::cluster
