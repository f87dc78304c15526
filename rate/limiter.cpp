// rate::Limiter, following x/time/rate's Limiter.reserveN and advance.
#include "rate/limiter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rg::rate {

Limiter::Limiter(double limit, int burst, Now now)
    : limit_(limit), burst_(burst), now_(std::move(now)), tokens_(burst), last_(now_()) {
  if (!(limit > 0)) {
    throw std::invalid_argument("token bucket: the rate must be > 0 per second (got " +
                                std::to_string(limit) + "); use infinity for no limit");
  }
  if (burst < 1) {
    throw std::invalid_argument("token bucket: the burst must be >= 1 (got " +
                                std::to_string(burst) + ")");
  }
}

void Limiter::advance(Clock::time_point now) {
  // Refill for the time since the last update, capped at burst. A clock that went backwards
  // refills nothing.
  const Clock::time_point from = std::min(last_, now);
  const double elapsed = std::chrono::duration<double>(now - from).count();
  tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * limit_);
  last_ = now;
}

bool Limiter::allow() {
  if (std::isinf(limit_)) return true;
  std::lock_guard lock(mutex_);
  advance(now_());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

Clock::duration Limiter::reserve() {
  if (std::isinf(limit_)) return Clock::duration::zero();
  std::lock_guard lock(mutex_);
  advance(now_());
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  // durationFromTokens(): seconds = tokens / limit, truncated to the clock's tick.
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / limit_));
}

}  // namespace rg::rate
