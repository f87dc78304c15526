// rate::Bucket on the caller's time, as the Event correlator (wall clock, one per object) and
// kube-sim's zone eviction queues (burst 1) use it: Allow never goes into debt, next_token says
// when without taking, the refill is capped at the burst, and the time type is the caller's.
#include <doctest/doctest.h>

#include <chrono>

#include "rate/bucket.hpp"

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using Wall = std::chrono::system_clock;

TEST_CASE("allow takes a token only when there is one; next_token says when, without taking") {
  const auto t0 = Steady::time_point{} + 100s;
  rg::rate::Bucket<Steady> bucket(2, 1, t0);  // burst 1, a token every 500 ms
  CHECK(bucket.next_token(t0) == t0);
  CHECK(bucket.allow(t0));
  CHECK_FALSE(bucket.allow(t0));
  CHECK_FALSE(bucket.allow(t0 + 100ms));  // a refused allow leaves no debt behind
  CHECK(bucket.next_token(t0 + 100ms) == t0 + 500ms);
  CHECK(bucket.next_token(t0 + 100ms) == t0 + 500ms);  // asking takes nothing
  CHECK(bucket.allow(t0 + 500ms));
  CHECK(bucket.tokens_at(t0 + 1h) == doctest::Approx(1.0));  // capped at the burst
}

TEST_CASE("a wall-clock bucket: the spam filter's 25 at once, then one per 5 minutes") {
  const auto t0 = Wall::time_point{} + 1000h;
  rg::rate::Bucket<Wall> bucket(1.0 / 300, 25, t0);
  int allowed = 0;
  for (int i = 0; i < 30; ++i) allowed += bucket.allow(t0) ? 1 : 0;
  CHECK(allowed == 25);
  CHECK_FALSE(bucket.allow(t0 + 299s));
  CHECK(bucket.allow(t0 + 300s));
  CHECK(bucket.reserve(t0 + 300s) == 300s);  // reserve goes into debt: the wait for its token
}
