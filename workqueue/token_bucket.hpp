// token_bucket.hpp: a token bucket with golang.org/x/time/rate's Reserve semantics, the engine of
// BucketRateLimiter. It starts full (burst tokens), refills at `qps` tokens per second, and every
// reservation takes one token, going into debt when empty: the returned delay is how long until
// that token will have been refilled. Thread-safe.
#pragma once

#include <memory>
#include <mutex>

#include "workqueue/clock.hpp"

namespace rg::workqueue {

class TokenBucket {
 public:
  // qps > 0 (infinity: never waits), burst >= 1; throws std::invalid_argument otherwise.
  TokenBucket(double qps, int burst, std::shared_ptr<const Clock> clock = nullptr);

  // Takes one token now and returns how long the caller must wait before acting.
  Duration reserve();

 private:
  const double qps_;
  const int burst_;
  const std::shared_ptr<const Clock> clock_;
  std::mutex mu_;
  double tokens_;
  TimePoint last_;  // when tokens_ was last brought up to date
};

}  // namespace rg::workqueue
