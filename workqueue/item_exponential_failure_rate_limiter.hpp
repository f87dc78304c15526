// item_exponential_failure_rate_limiter.hpp: per-item exponential backoff, base * 2^failures
// capped at max (client-go's ItemExponentialFailureRateLimiter; its controller default is
// 5 ms doubling up to 1000 s).
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "workqueue/detail/failure_counts.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/rate_limiter.hpp"

namespace rg::workqueue {

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class ItemExponentialFailureRateLimiter final : public RateLimiter<Key> {
 public:
  explicit ItemExponentialFailureRateLimiter(Duration base_delay = std::chrono::milliseconds(5),
                                             Duration max_delay = std::chrono::seconds(1000))
      : base_delay_(base_delay), max_delay_(max_delay) {
    if (base_delay < Duration::zero() || max_delay < base_delay) {
      throw std::invalid_argument(
          "ItemExponentialFailureRateLimiter: need 0 <= base_delay <= max_delay");
    }
  }

  Duration when(const Key& key) override {
    const int exp = failures_.add(key);
    // Computed in floating point so that large exponents saturate instead of overflowing.
    const double backoff = static_cast<double>(base_delay_.count()) * std::pow(2.0, exp);
    if (backoff >= static_cast<double>(max_delay_.count())) return max_delay_;
    return Duration(static_cast<Duration::rep>(backoff));
  }

  void forget(const Key& key) override { failures_.forget(key); }

  int num_requeues(const Key& key) override { return failures_.get(key); }

 private:
  const Duration base_delay_;
  const Duration max_delay_;
  detail::FailureCounts<Key, Hash, KeyEqual> failures_;
};

}  // namespace rg::workqueue
