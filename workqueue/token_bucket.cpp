// token_bucket.cpp: TokenBucket, following x/time/rate's Limiter.reserveN and advance.
#include "workqueue/token_bucket.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rg::workqueue {

TokenBucket::TokenBucket(double qps, int burst, std::shared_ptr<const Clock> clock)
    : qps_(qps),
      burst_(burst),
      clock_(clock ? std::move(clock) : SteadyClock::shared()),
      tokens_(burst),
      last_(clock_->now()) {
  if (!(qps > 0)) {
    throw std::invalid_argument("TokenBucket: qps must be > 0 (got " + std::to_string(qps) +
                                "); use infinity for no limit");
  }
  if (burst < 1) {
    throw std::invalid_argument("TokenBucket: burst must be >= 1 (got " + std::to_string(burst) +
                                ")");
  }
}

Duration TokenBucket::reserve() {
  if (std::isinf(qps_)) return Duration::zero();
  std::lock_guard lock(mu_);
  const TimePoint now = clock_->now();
  // advance(): refill for the time since the last update, capped at burst. A clock that went
  // backwards refills nothing.
  const TimePoint from = std::min(last_, now);
  const double elapsed = std::chrono::duration<double>(now - from).count();
  tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
  last_ = now;
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration::zero();
  // durationFromTokens(): seconds = tokens / limit, truncated to the clock's tick.
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

}  // namespace rg::workqueue
