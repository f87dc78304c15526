// rate::Bucket: the token bucket's arithmetic -- golang.org/x/time/rate's advance, AllowN and
// ReserveN -- pure and unsynchronised, with the time passed in. rate::Limiter wraps one with a lock
// and a clock; code that keeps many buckets (the Event correlator's spam filter, one per object)
// or runs on its own time (kube-sim's zone eviction queues) holds one directly. It starts full
// (`burst` tokens) and refills at `limit` tokens per second (finite, > 0: the caller handles "no
// limit" and "never", as x/time/rate's Inf and client-go's fake never-limiter sit outside it).
#pragma once

#include <algorithm>
#include <chrono>

namespace rg::rate {

template <class Clock>
class Bucket {
 public:
  using time_point = typename Clock::time_point;
  using duration = typename Clock::duration;

  Bucket(double limit, double burst, time_point now)
      : limit_(limit), burst_(burst), tokens_(burst), last_(now) {}

  double limit() const { return limit_; }

  /// The tokens at `now`: those left plus the refill since the last update, capped at the
  /// burst. A clock that went backwards refills nothing.
  double tokens_at(time_point now) const {
    const double elapsed = std::chrono::duration<double>(now - std::min(last_, now)).count();
    return std::min(burst_, tokens_ + elapsed * limit_);
  }

  /// Takes a token if one is there at `now` (AllowN(now, 1)); never goes into debt.
  bool allow(time_point now) {
    advance(now);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  /// Takes a token at `now`, going into debt when there is none, and returns how long until that
  /// token will have been refilled (ReserveN(now, 1).Delay()): waiters are served in order.
  duration reserve(time_point now) {
    advance(now);
    tokens_ -= 1;
    if (tokens_ >= 0) return duration::zero();
    return std::chrono::duration_cast<duration>(std::chrono::duration<double>(-tokens_ / limit_));
  }

  /// When a token will be there, without taking one (`now` if there is one already).
  time_point next_token(time_point now) const {
    const double missing = 1 - tokens_at(now);
    if (missing <= 0) return now;
    return now +
           std::chrono::duration_cast<duration>(std::chrono::duration<double>(missing / limit_));
  }

 private:
  double limit_;
  double burst_;
  double tokens_;
  time_point last_;  // when tokens_ was last brought up to date

  void advance(time_point now) {
    tokens_ = tokens_at(now);
    last_ = now;
  }
};

}  // namespace rg::rate
