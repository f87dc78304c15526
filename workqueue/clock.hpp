// clock.hpp: the injectable clock the work queue reads time from (metrics timestamps, delays,
// the token bucket). SteadyClock is the real one; FakeClock is set by hand in tests, so rate
// limiter and metrics tests never sleep.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

namespace rg::workqueue {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

// Where the queue reads "now" from. Implementations must be safe to call from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

// std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }

  // The process-wide instance queues and rate limiters use when none is given.
  static std::shared_ptr<const Clock> shared();
};

// A clock that only moves when told to (k8s.io/utils/clock/testing's FakeClock).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint{} + std::chrono::hours(1))
      : now_(start.time_since_epoch().count()) {}

  TimePoint now() const override {
    return TimePoint(Duration(now_.load(std::memory_order_acquire)));
  }
  void set(TimePoint t) { now_.store(t.time_since_epoch().count(), std::memory_order_release); }
  void step(Duration d) { now_.fetch_add(d.count(), std::memory_order_acq_rel); }

 private:
  std::atomic<Duration::rep> now_;
};

}  // namespace rg::workqueue
