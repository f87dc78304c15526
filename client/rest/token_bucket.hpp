// TokenBucket: the client-side rate limit (RestConfig::qps / burst), like client-go's
// flowcontrol.NewTokenBucketRateLimiter: `burst` requests may go at once, then `qps` per second.
// Thread-safe. Waiting requests hold a reservation (first come, first served).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <mutex>

namespace rg::client {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  /// qps <= 0 disables the limit. burst < 1 counts as 1 (a bucket must hold one token).
  TokenBucket(double qps, int burst, Now now = Clock::now);

  bool enabled() const { return qps_ > 0; }

  /// Takes a token and says how long to wait before using it (zero when one was in the bucket).
  Clock::duration reserve();

  /// Takes a token only if one is in the bucket now (client-go's TryAccept); never reserves.
  bool try_accept();

  /// reserve(), then waits that long (cancellable).
  boost::asio::awaitable<void> acquire();

 private:
  /// Adds the tokens earned since the last call (under mutex_).
  void refill();

  const double qps_;
  const double burst_;
  const Now now_;
  std::mutex mutex_;
  double tokens_;  ///< may go negative: tokens already promised to waiters
  Clock::time_point last_;
};

}  // namespace rg::client
