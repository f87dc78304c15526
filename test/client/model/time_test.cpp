// Kubernetes wire timestamps: metav1.Time and MicroTime formatting, RFC 3339 parsing.
#include <doctest/doctest.h>

#include "client/model/time.hpp"

using namespace rg::client;

TEST_CASE("RFC 3339 timestamps") {
  using std::chrono::seconds;
  auto epoch = [](std::string_view t) {
    auto p = parse_rfc3339(t);
    REQUIRE(p.has_value());
    return std::chrono::duration_cast<std::chrono::milliseconds>(p->time_since_epoch()).count();
  };
  CHECK(epoch("1970-01-01T00:00:00Z") == 0);
  CHECK(epoch("2026-11-29T15:04:05Z") == 1795964645000);
  CHECK(epoch("2026-11-29T15:04:05.25Z") == 1795964645250);
  CHECK(epoch("2026-11-29T16:04:05+01:00") == 1795964645000);
  CHECK(epoch("2026-11-29T14:04:05-01:00") == 1795964645000);
  for (std::string_view bad :
       {"", "2026-11-29", "2026-11-29T15:04:05", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
        "2026-11-29T15:04:05Zjunk", "2026-11-29T15:04:05.Z", "2026-11-29 15:04:05Z"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_rfc3339(bad).has_value());
  }
}

TEST_CASE("Time and MicroTime are formatted in UTC as the API server writes them") {
  const auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1795964645123456));
  CHECK(format_time(t) == "2026-11-29T15:04:05Z");
  CHECK(format_micro_time(t) == "2026-11-29T15:04:05.123456Z");
  CHECK(format_micro_time(std::chrono::system_clock::time_point{}) ==
        "1970-01-01T00:00:00.000000Z");
  // What is formatted parses back to the same instant (to the microsecond).
  CHECK(parse_rfc3339(format_micro_time(t)) == t);
  CHECK(parse_rfc3339(format_time(t)) ==
        std::chrono::system_clock::time_point(std::chrono::seconds(1795964645)));
}

TEST_CASE("times WallTime cannot hold are clamped to its ends, not overflowed") {
  // Found by test/fuzz/exec_credential: nanoseconds since 1970 overflowed 64 bits (undefined
  // behaviour) for years outside 1678-2261.
  CHECK(parse_rfc3339("3000-01-01T00:00:00Z") == WallTime::max());
  CHECK(parse_rfc3339("9999-12-31T23:59:59.999+14:00") == WallTime::max());
  CHECK(parse_rfc3339("1014-01-01T00:00:00-23:59") == WallTime::min());
  CHECK(parse_rfc3339("0000-01-01T00:00:00Z") == WallTime::min());
  // The ends format and parse back to themselves.
  CHECK(parse_rfc3339(format_micro_time(WallTime::max())) == WallTime::max());
  CHECK(parse_rfc3339(format_micro_time(WallTime::min())) == WallTime::min());
  // Just inside the range nothing is clamped.
  CHECK(format_time(*parse_rfc3339("2262-01-01T00:00:00Z")) == "2262-01-01T00:00:00Z");
  CHECK(format_time(*parse_rfc3339("1678-01-01T00:00:00Z")) == "1678-01-01T00:00:00Z");
}
