// item_fast_slow_rate_limiter.hpp: per-item "retry quickly a few times, then slowly"
// (client-go's ItemFastSlowRateLimiter): the first max_fast_attempts failures wait fast_delay,
// later ones slow_delay.
#pragma once

#include <functional>
#include <stdexcept>

#include "workqueue/detail/failure_counts.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/rate_limiter.hpp"

namespace rg::workqueue {

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class ItemFastSlowRateLimiter final : public RateLimiter<Key> {
 public:
  ItemFastSlowRateLimiter(Duration fast_delay, Duration slow_delay, int max_fast_attempts)
      : fast_delay_(fast_delay), slow_delay_(slow_delay), max_fast_attempts_(max_fast_attempts) {
    if (fast_delay < Duration::zero() || slow_delay < Duration::zero() || max_fast_attempts < 0) {
      throw std::invalid_argument(
          "ItemFastSlowRateLimiter: delays and max_fast_attempts must not be negative");
    }
  }

  Duration when(const Key& key) override {
    const int attempts = failures_.add(key) + 1;
    return attempts <= max_fast_attempts_ ? fast_delay_ : slow_delay_;
  }

  void forget(const Key& key) override { failures_.forget(key); }

  int num_requeues(const Key& key) override { return failures_.get(key); }

 private:
  const Duration fast_delay_;
  const Duration slow_delay_;
  const int max_fast_attempts_;
  detail::FailureCounts<Key, Hash, KeyEqual> failures_;
};

}  // namespace rg::workqueue
