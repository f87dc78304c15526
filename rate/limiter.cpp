// rate::Limiter: x/time/rate's Limiter -- a Bucket under a lock, read with the limiter's clock.
#include "rate/limiter.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rg::rate {

namespace {

double checked_limit(double limit) {
  if (!(limit > 0)) {
    throw std::invalid_argument("token bucket: the rate must be > 0 per second (got " +
                                std::to_string(limit) + "); use infinity for no limit");
  }
  return limit;
}

int checked_burst(int burst) {
  if (burst < 1) {
    throw std::invalid_argument("token bucket: the burst must be >= 1 (got " +
                                std::to_string(burst) + ")");
  }
  return burst;
}

}  // namespace

Limiter::Limiter(double limit, int burst, Now now)
    : unlimited_(std::isinf(checked_limit(limit))),
      now_(std::move(now)),
      // An infinite rate never reads its bucket (infinity x 0 s would be NaN).
      bucket_(unlimited_ ? 1 : limit, checked_burst(burst), now_()) {}

bool Limiter::allow() {
  if (unlimited_) return true;
  std::lock_guard lock(mutex_);
  return bucket_.allow(now_());
}

Clock::duration Limiter::reserve() {
  if (unlimited_) return Clock::duration::zero();
  std::lock_guard lock(mutex_);
  return bucket_.reserve(now_());
}

}  // namespace rg::rate
