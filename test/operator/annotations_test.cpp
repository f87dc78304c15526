// Parsing replica-guard.io annotation values and duration flags.
#include <doctest/doctest.h>

#include <stdexcept>

#include "operator/annotations.hpp"

using namespace rg::op;
using namespace std::chrono_literals;

TEST_CASE("max-surge is an absolute count or a percentage rounded up") {
  CHECK(IntOrPercent::parse("2").resolve(10) == 2);
  CHECK(IntOrPercent::parse("25%").resolve(10) == 3);
  CHECK(IntOrPercent::parse("25%").resolve(4) == 1);
  CHECK(IntOrPercent::parse("25%").resolve(1) == 1);
  CHECK(IntOrPercent::parse("0%").resolve(7) == 0);
  CHECK(IntOrPercent::parse("100%").resolve(7) == 7);
  CHECK(IntOrPercent::parse("50%").to_string() == "50%");
  for (const char* bad : {"", "%", "-1", "two", "1.5", "3%%", " 3", "2000%"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(IntOrPercent::parse(bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH(IntOrPercent::parse("two"),
                    doctest::Contains("\"two\" is not a replica count or a percentage"));
}

TEST_CASE("replica counts are non-negative integers") {
  CHECK(parse_replicas("0") == 0);
  CHECK(parse_replicas("12") == 12);
  CHECK_FALSE(parse_replicas("-1"));
  CHECK_FALSE(parse_replicas("3x"));
  CHECK_FALSE(parse_replicas(""));
}

TEST_CASE("durations use Go's syntax") {
  CHECK(parse_duration("30s") == 30s);
  CHECK(parse_duration("1m30s") == 90s);
  CHECK(parse_duration("500ms") == 500ms);
  CHECK(parse_duration("2h") == 2h);
  CHECK(parse_duration("1.5s") == 1500ms);
  CHECK(parse_duration("0") == 0ms);
  for (const char* bad : {"", "30", "s", "10x", "1m 30s", "-5s"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_duration(bad), std::invalid_argument);
  }
}
