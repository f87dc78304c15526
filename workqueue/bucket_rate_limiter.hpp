// bucket_rate_limiter.hpp: an overall token bucket shared by all items (client-go's
// BucketRateLimiter over rate.NewLimiter(qps, burst); the controller default is 10 qps, burst
// 100). It has no per-item memory: forget does nothing and num_requeues is always 0.
#pragma once

#include <memory>

#include "rate/limiter.hpp"
#include "workqueue/rate_limiter.hpp"

namespace rg::workqueue {

template <class Key>
class BucketRateLimiter final : public RateLimiter<Key> {
 public:
  /// qps > 0 (infinity: no limit), burst >= 1; throws std::invalid_argument otherwise.
  explicit BucketRateLimiter(double qps = 10, int burst = 100,
                             std::shared_ptr<const Clock> clock = nullptr)
      : bucket_(qps, burst, [clock = clock ? std::move(clock) : SteadyClock::shared()] {
          return clock->now();
        }) {}

  Duration when(const Key&) override { return bucket_.reserve(); }
  void forget(const Key&) override {}
  int num_requeues(const Key&) override { return 0; }

 private:
  rate::Limiter bucket_;
};

}  // namespace rg::workqueue
