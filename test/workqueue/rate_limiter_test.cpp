// Tests of the rate limiters: the exact exponential sequence, fast-slow, the token bucket's burst
// and rate on a FakeClock, max-of and the controller default.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "workqueue/bucket_rate_limiter.hpp"
#include "workqueue/default_controller_rate_limiter.hpp"
#include "workqueue/item_exponential_failure_rate_limiter.hpp"
#include "workqueue/item_fast_slow_rate_limiter.hpp"
#include "workqueue/max_of_rate_limiter.hpp"

using namespace std::chrono_literals;
using rg::workqueue::BucketRateLimiter;
using rg::workqueue::Duration;
using rg::workqueue::FakeClock;
using rg::workqueue::ItemExponentialFailureRateLimiter;
using rg::workqueue::ItemFastSlowRateLimiter;
using rg::workqueue::MaxOfRateLimiter;

TEST_CASE("exponential backoff doubles from 5ms and caps at 1000s") {
  ItemExponentialFailureRateLimiter<std::string> limiter;
  const Duration expected[] = {5ms,     10ms,     20ms,     40ms,     80ms,    160ms,   320ms,
                               640ms,   1280ms,   2560ms,   5120ms,   10240ms, 20480ms, 40960ms,
                               81920ms, 163840ms, 327680ms, 655360ms, 1000s,   1000s,   1000s};
  int n = 0;
  for (Duration d : expected) {
    CHECK(limiter.when("k") == d);
    CHECK(limiter.num_requeues("k") == ++n);
  }
  for (int i = 0; i < 100; ++i) CHECK(limiter.when("k") == 1000s);  // no overflow, ever
  CHECK(limiter.when("other") == 5ms);                              // per item
  limiter.forget("k");
  CHECK(limiter.num_requeues("k") == 0);
  CHECK(limiter.when("k") == 5ms);
  CHECK(limiter.num_requeues("other") == 1);
}

TEST_CASE("exponential backoff takes its parameters") {
  ItemExponentialFailureRateLimiter<int> limiter(1ms, 3ms);
  CHECK(limiter.when(1) == 1ms);
  CHECK(limiter.when(1) == 2ms);
  CHECK(limiter.when(1) == 3ms);
  CHECK(limiter.when(1) == 3ms);
  CHECK_THROWS_AS(ItemExponentialFailureRateLimiter<int>(5ms, 1ms), std::invalid_argument);
}

TEST_CASE("fast-slow waits fast for the first attempts, then slow") {
  ItemFastSlowRateLimiter<std::string> limiter(5ms, 10s, 3);
  CHECK(limiter.when("k") == 5ms);
  CHECK(limiter.when("k") == 5ms);
  CHECK(limiter.when("k") == 5ms);
  CHECK(limiter.when("k") == 10s);
  CHECK(limiter.when("k") == 10s);
  CHECK(limiter.num_requeues("k") == 5);
  CHECK(limiter.when("j") == 5ms);
  limiter.forget("k");
  CHECK(limiter.num_requeues("k") == 0);
  CHECK(limiter.when("k") == 5ms);
  CHECK_THROWS_AS(ItemFastSlowRateLimiter<int>(1ms, 1ms, -1), std::invalid_argument);
}

TEST_CASE("the token bucket allows its burst at once, then one token per 1/qps") {
  auto clock = std::make_shared<FakeClock>();
  BucketRateLimiter<std::string> limiter(10, 100, clock);
  for (int i = 0; i < 100; ++i) CHECK(limiter.when("k" + std::to_string(i)) == 0ms);
  CHECK(limiter.when("a") == 100ms);  // in debt by one token
  CHECK(limiter.when("b") == 200ms);
  CHECK(limiter.when("c") == 300ms);
  clock->step(1s);  // 10 tokens refilled: debt of 3 becomes 7 available
  for (int i = 0; i < 7; ++i) CHECK(limiter.when("d") == 0ms);
  CHECK(limiter.when("e") == 100ms);
  clock->step(50ms);  // half a token: the next waits 100ms - 50ms + 100ms
  CHECK(limiter.when("f") == 150ms);
  CHECK(limiter.num_requeues("f") == 0);
  limiter.forget("f");  // no per-item state
}

TEST_CASE("the bucket limiter rejects nonsense and allows an infinite rate") {
  CHECK_THROWS_AS(BucketRateLimiter<std::string>(0, 10), std::invalid_argument);
  CHECK_THROWS_AS(BucketRateLimiter<std::string>(10, 0), std::invalid_argument);
  BucketRateLimiter<std::string> unlimited(std::numeric_limits<double>::infinity(), 1);
  for (int i = 0; i < 1000; ++i) CHECK(unlimited.when("a") == 0ms);
}

TEST_CASE("max-of takes the longest delay and the most requeues") {
  auto fast_slow = std::make_shared<ItemFastSlowRateLimiter<std::string>>(1ms, 1s, 1);
  auto exponential = std::make_shared<ItemExponentialFailureRateLimiter<std::string>>(10ms, 1h);
  MaxOfRateLimiter<std::string> limiter({fast_slow, exponential});
  CHECK(limiter.when("k") == 10ms);  // max(1ms, 10ms)
  CHECK(limiter.when("k") == 1s);    // max(1s, 20ms)
  CHECK(limiter.num_requeues("k") == 2);
  limiter.forget("k");
  CHECK(fast_slow->num_requeues("k") == 0);
  CHECK(exponential->num_requeues("k") == 0);
  CHECK_THROWS_AS(MaxOfRateLimiter<std::string>({}), std::invalid_argument);
  CHECK_THROWS_AS(MaxOfRateLimiter<std::string>({nullptr}), std::invalid_argument);
}

TEST_CASE("the controller default is max(5ms..1000s per item, 10 qps burst 100)") {
  auto clock = std::make_shared<FakeClock>();
  auto limiter = rg::workqueue::default_controller_rate_limiter<std::string>({.clock = clock});
  // Per-item backoff dominates while the bucket has tokens.
  CHECK(limiter->when("k") == 5ms);
  CHECK(limiter->when("k") == 10ms);
  CHECK(limiter->num_requeues("k") == 2);
  for (int i = 0; i < 98; ++i) CHECK(limiter->when("item" + std::to_string(i)) == 5ms);
  // The bucket is empty now: it dominates for fresh items.
  CHECK(limiter->when("fresh") == 100ms);
  limiter->forget("k");
  CHECK(limiter->num_requeues("k") == 0);
}
