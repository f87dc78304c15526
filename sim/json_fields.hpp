// Small readers and writers of Kubernetes JSON objects, shared by kube-sim's registry,
// strategies, authorization endpoints and simulated controllers: members that may be absent or
// of another type read as null, "" or a fallback; writers create what is missing.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace rg::sim {

/// The member `key` of `object` as an object, created (or replaced) when absent or not one.
boost::json::object& object_at(boost::json::object& object, std::string_view key);
/// The member `key` as an array, created (or replaced) when absent or not one.
boost::json::array& array_at(boost::json::object& object, std::string_view key);

/// The member `key` when it is an object / an array; else null.
const boost::json::object* find_object(const boost::json::object& object, std::string_view key);
const boost::json::array* find_array(const boost::json::object& object, std::string_view key);
/// The member `key` when it is a string, else null.
const boost::json::string* find_string(const boost::json::object& object, std::string_view key);
/// The member `key` when it is a string, else "": a copy, and a view into `object`.
std::string string_at(const boost::json::object& object, std::string_view key);
std::string_view string_view_at(const boost::json::object& object, std::string_view key);
/// The member `key` when it is a number (doubles truncated), else `fallback`.
std::int64_t int_at(const boost::json::object& object, std::string_view key,
                    std::int64_t fallback = 0);

/// The condition of `type` in `conditions` (status.conditions of a pod, a node, ...), or null.
const boost::json::object* find_condition(const boost::json::array& conditions,
                                          std::string_view type);
boost::json::object* find_condition(boost::json::array& conditions, std::string_view type);

}  // namespace rg::sim
