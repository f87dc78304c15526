// TokenBucket: the client-side rate limit (RestConfig::qps / burst, the operator's --kube-api-qps
// and --kube-api-burst), like client-go's flowcontrol.NewTokenBucketRateLimiter: `burst` requests
// may go at once, then `qps` per second, first come first served. The bucket is rate::Limiter
// (rate/limiter.hpp), the one the workqueue uses too; this adds "qps <= 0: no limit" and the
// awaitable wait. Thread-safe.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>

#include "rate/limiter.hpp"

namespace rg::client {

class TokenBucket {
 public:
  using Clock = rate::Clock;
  using Now = rate::Limiter::Now;

  /// qps <= 0 disables the limit. burst < 1 counts as 1 (a bucket must hold one token).
  TokenBucket(double qps, int burst, Now now = &Clock::now);

  bool enabled() const { return limiter_.has_value(); }

  /// Takes a token and says how long to wait before using it (zero when one was in the bucket).
  Clock::duration reserve();

  /// Takes a token only if one is in the bucket now (client-go's TryAccept); never reserves.
  /// Always true without a limit.
  bool try_accept();

  /// reserve(), then waits that long (cancellable).
  boost::asio::awaitable<void> acquire();

 private:
  std::optional<rate::Limiter> limiter_;
};

}  // namespace rg::client
