// Deep equality of JSON values, exactly as boost::json's operator== defines it (an int64 and a
// uint64 of the same value are equal, a double equals only a double, objects compare as
// unordered maps), without its copies: Boost 1.81's object comparison copies every member it
// visits, so comparing two large objects cost as much as copying them.
#pragma once

#include <boost/json/fwd.hpp>

namespace rg::sim {

bool json_equal(const boost::json::value& a, const boost::json::value& b);
bool json_equal(const boost::json::object& a, const boost::json::object& b);
bool json_equal(const boost::json::array& a, const boost::json::array& b);

}  // namespace rg::sim
