// json_equal: the same answers as boost::json's operator== for every pair of a set of values that
// covers each kind, the number kinds across each other, member order, and nested differences.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/json_equal.hpp"

namespace json = boost::json;

TEST_CASE("json_equal answers as operator== does, without copying") {
  const std::vector<json::value> values = {
      nullptr,
      true,
      false,
      json::value(std::int64_t{1}),
      json::value(std::uint64_t{1}),
      json::value(std::int64_t{-1}),
      json::value(std::numeric_limits<std::uint64_t>::max()),
      json::value(1.0),
      json::value(0.5),
      "1",
      "",
      json::array{},
      json::array{1, 2},
      json::array{2, 1},
      json::array{1, 2, 3},
      json::object{},
      json::parse(R"({"a":1,"b":{"c":[1,{"d":"x"}]}})"),
      json::parse(R"({"b":{"c":[1,{"d":"x"}]},"a":1})"),  // the same, another member order
      json::parse(R"({"a":1,"b":{"c":[1,{"d":"y"}]}})"),  // one leaf deep inside differs
      json::parse(R"({"a":1,"b":{"c":[1,{"d":"x"}]},"e":null})"),
      json::parse(R"({"a":1,"z":{"c":[1,{"d":"x"}]}})"),  // same size, another key
  };
  for (const auto& a : values)
    for (const auto& b : values) {
      CAPTURE(json::serialize(a));
      CAPTURE(json::serialize(b));
      CHECK(rg::sim::json_equal(a, b) == (a == b));
    }
  CHECK(rg::sim::json_equal(values[16], values[17]));
  CHECK(!rg::sim::json_equal(values[16], values[18]));
  CHECK(rg::sim::json_equal(values[3], values[4]));   // int64 1 == uint64 1
  CHECK(!rg::sim::json_equal(values[3], values[7]));  // but not the double 1.0
}
