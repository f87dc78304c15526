// BackoffPolicy: client-go's reflector backoff (800 ms doubling to 30 s, jitter, 2 min reset).
#include <doctest/doctest.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "informer/backoff.hpp"

using namespace rg::informer;
using namespace std::chrono_literals;
using Clock = BackoffPolicy::Clock;

namespace {
struct FakeTime {
  Clock::time_point now{};
  double random = 0.0;
  BackoffPolicy policy(BackoffPolicy::Options options = {}) {
    return BackoffPolicy(
        options, [this] { return now; }, [this] { return random; });
  }
};
}  // namespace

TEST_CASE("delays double from 800 ms and stop growing at 30 s") {
  FakeTime t;
  auto policy = t.policy();
  std::vector<Clock::duration> delays;
  for (int i = 0; i < 8; ++i) {
    delays.push_back(policy.next());
    t.now += 1s;
  }
  CHECK(delays ==
        std::vector<Clock::duration>{800ms, 1600ms, 3200ms, 6400ms, 12800ms, 25600ms, 30s, 30s});
}

TEST_CASE("jitter adds up to jitter * delay on top") {
  FakeTime t;
  t.random = 0.5;
  auto policy = t.policy();
  CHECK(policy.next() == 1200ms);
  CHECK(policy.next() == 2400ms);
  auto no_jitter = t.policy({.jitter = 0.0});
  CHECK(no_jitter.next() == 800ms);
}

TEST_CASE("two quiet minutes reset the delay") {
  FakeTime t;
  auto policy = t.policy();
  policy.next();
  policy.next();
  t.now += 2min;  // exactly two minutes: not yet
  CHECK(policy.next() == 3200ms);
  t.now += 2min + 1ms;
  CHECK(policy.next() == 800ms);
  policy.next();
  policy.reset();
  CHECK(policy.next() == 800ms);
}

TEST_CASE("nonsense options are refused") {
  FakeTime t;
  CHECK_THROWS_AS(t.policy({.initial = 0ms}), std::invalid_argument);
  CHECK_THROWS_AS(t.policy({.initial = 2s, .max = 1s}), std::invalid_argument);
  CHECK_THROWS_AS(t.policy({.factor = 0.5}), std::invalid_argument);
  CHECK_THROWS_AS(t.policy({.jitter = -1.0}), std::invalid_argument);
}
