// rate::Limiter: the project's token bucket (rate::Bucket) behind a lock and a clock, with
// golang.org/x/time/rate's Reserve semantics. It starts full (`burst` tokens), refills at
// `limit` tokens per second, and every reservation takes one token, going into debt when the
// bucket is empty: the returned delay is how long until that token will have been refilled, so
// waiters are served first come, first served. Thread-safe. The client's flow control
// (client/rest/token_bucket.hpp, --kube-api-qps) and the workqueue's BucketRateLimiter both use
// it, as client-go's flowcontrol and workqueue both use x/time/rate; it depends on nothing of
// ours.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

#include "rate/bucket.hpp"

namespace rg::rate {

using Clock = std::chrono::steady_clock;

class Limiter {
 public:
  using Now = std::function<Clock::time_point()>;

  /// limit > 0 tokens per second (infinity: never waits), burst >= 1; throws
  /// std::invalid_argument otherwise. `now` is read under the limiter's lock.
  Limiter(double limit, int burst, Now now = &Clock::now);

  /// Takes one token now and returns how long the caller must wait before acting.
  Clock::duration reserve();
  /// Takes one token only if the bucket holds one now (x/time/rate's Allow); never goes into
  /// debt.
  bool allow();

 private:
  const bool unlimited_;
  const Now now_;
  std::mutex mutex_;
  Bucket<Clock> bucket_;
};

}  // namespace rg::rate
