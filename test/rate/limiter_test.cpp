// rate::Limiter, the project's one token bucket (with a fake clock): burst at once, then one token
// per 1/limit; never more than the burst however long it rests; a clock going backwards refills
// nothing; nonsense is refused, an infinite rate never waits.
#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <stdexcept>

#include "rate/limiter.hpp"

using namespace std::chrono_literals;
using rg::rate::Clock;
using rg::rate::Limiter;

TEST_CASE("burst at once, then one token per 1/limit, never more than the burst") {
  Clock::time_point now = Clock::time_point{} + 100s;
  Limiter bucket(10, 5, [&] { return now; });
  now += 1h;
  for (int i = 0; i < 5; ++i) CHECK(bucket.reserve() == 0ms);
  CHECK(bucket.reserve() == 100ms);
  CHECK(bucket.reserve() == 200ms);  // waiters queue: first come, first served
  now += 50ms;                       // half a token: the next waits 300ms - 50ms
  CHECK(bucket.reserve() == 250ms);
}

TEST_CASE("a clock that goes backwards refills nothing") {
  Clock::time_point now = Clock::time_point{} + 100s;
  Limiter bucket(1, 1, [&] { return now; });
  CHECK(bucket.reserve() == 0ms);
  now -= 10s;
  CHECK(bucket.reserve() == 1s);
}

TEST_CASE("nonsense is refused; an infinite rate never waits") {
  CHECK_THROWS_AS(Limiter(0, 10), std::invalid_argument);
  CHECK_THROWS_AS(Limiter(-1, 10), std::invalid_argument);
  CHECK_THROWS_AS(Limiter(10, 0), std::invalid_argument);
  Limiter unlimited(std::numeric_limits<double>::infinity(), 1);
  for (int i = 0; i < 1000; ++i) CHECK(unlimited.reserve() == 0ms);
}
