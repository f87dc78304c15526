// Tests of the retry decision and the client-side token bucket (with a fake clock).
#include <doctest/doctest.h>

#include "client/rest/retry_policy.hpp"
#include "client/rest/token_bucket.hpp"

using namespace rg::client;
using std::chrono::seconds;

TEST_CASE("retry_delay: 429 for any verb, 503 for safe verbs only, only with Retry-After") {
  const RetryPolicy policy;
  CHECK(retry_delay(policy, "GET", 429, "1", 0) == seconds(1));
  CHECK(retry_delay(policy, "POST", 429, "0", 0) == seconds(0));
  CHECK(retry_delay(policy, "PATCH", 429, " 2 ", 0) == seconds(2));
  CHECK(retry_delay(policy, "GET", 503, "1", 0) == seconds(1));
  CHECK(retry_delay(policy, "HEAD", 503, "1", 0) == seconds(1));
  CHECK_FALSE(retry_delay(policy, "POST", 503, "1", 0));
  CHECK_FALSE(retry_delay(policy, "PUT", 503, "1", 0));
  CHECK_FALSE(retry_delay(policy, "GET", 500, "1", 0));
  CHECK_FALSE(retry_delay(policy, "GET", 504, "1", 0));
  CHECK_FALSE(retry_delay(policy, "GET", 429, "", 0));
  CHECK_FALSE(retry_delay(policy, "GET", 429, "Wed, 21 Oct 2015 07:28:00 GMT", 0));
  CHECK_FALSE(retry_delay(policy, "GET", 429, "-1", 0));
}

TEST_CASE("retry_delay: at most max_retries, each wait capped") {
  RetryPolicy policy;
  CHECK(retry_delay(policy, "GET", 429, "1", 9) == seconds(1));
  CHECK_FALSE(retry_delay(policy, "GET", 429, "1", 10));
  CHECK(retry_delay(policy, "GET", 429, "3600", 0) == seconds(60));
  policy.max_retries = 0;
  CHECK_FALSE(retry_delay(policy, "GET", 429, "1", 0));
}

TEST_CASE("method classes") {
  CHECK(is_safe_method("GET"));
  CHECK_FALSE(is_safe_method("PUT"));
  CHECK(is_idempotent_method("PUT"));
  CHECK(is_idempotent_method("DELETE"));
  CHECK_FALSE(is_idempotent_method("POST"));
  CHECK_FALSE(is_idempotent_method("PATCH"));
}

TEST_CASE("token bucket: burst at once, then one token per 1/qps") {
  auto now = TokenBucket::Clock::time_point{} + seconds(100);
  TokenBucket bucket(2.0, 3, [&] { return now; });
  REQUIRE(bucket.enabled());
  for (int i = 0; i < 3; ++i) CHECK(bucket.reserve() == TokenBucket::Clock::duration::zero());
  // Empty: the next tokens are promised 0.5 s apart.
  CHECK(bucket.reserve() == std::chrono::milliseconds(500));
  CHECK(bucket.reserve() == std::chrono::milliseconds(1000));
  // After 10 s the bucket is full again, never more than burst.
  now += seconds(10);
  for (int i = 0; i < 3; ++i) CHECK(bucket.reserve() == TokenBucket::Clock::duration::zero());
  CHECK(bucket.reserve() > TokenBucket::Clock::duration::zero());
}

TEST_CASE("token bucket: try_accept takes only tokens in the bucket, never borrows") {
  auto now = TokenBucket::Clock::time_point{} + seconds(100);
  TokenBucket bucket(2.0, 3, [&] { return now; });
  for (int i = 0; i < 3; ++i) CHECK(bucket.try_accept());
  for (int i = 0; i < 10; ++i) CHECK_FALSE(bucket.try_accept());  // refused, nothing owed
  now += std::chrono::milliseconds(500);
  CHECK(bucket.try_accept());
  CHECK_FALSE(bucket.try_accept());
  CHECK(TokenBucket(0, 0).try_accept());
}

TEST_CASE("token bucket: qps 0 is off; burst below 1 counts as 1") {
  TokenBucket off(0, 0);
  CHECK_FALSE(off.enabled());
  for (int i = 0; i < 100; ++i) CHECK(off.reserve() == TokenBucket::Clock::duration::zero());

  auto now = TokenBucket::Clock::time_point{};
  TokenBucket one(1.0, 0, [&] { return now; });
  CHECK(one.reserve() == TokenBucket::Clock::duration::zero());
  CHECK(one.reserve() == seconds(1));
}
