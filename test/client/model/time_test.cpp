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
