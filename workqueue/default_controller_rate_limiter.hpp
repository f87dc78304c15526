// default_controller_rate_limiter.hpp: client-go's DefaultControllerRateLimiter, the limiter
// controllers use unless they have a reason not to: the slower of per-item exponential backoff
// (5 ms doubling to 1000 s) and an overall token bucket (10 qps, burst 100).
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "workqueue/bucket_rate_limiter.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/item_exponential_failure_rate_limiter.hpp"
#include "workqueue/max_of_rate_limiter.hpp"

namespace rg::workqueue {

struct ControllerRateLimiterOptions {
  Duration base_delay = std::chrono::milliseconds(5);
  Duration max_delay = std::chrono::seconds(1000);
  double qps = 10;
  int burst = 100;
  std::shared_ptr<const Clock> clock{};  // for the bucket; null: SteadyClock
};

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
std::shared_ptr<RateLimiter<Key>> default_controller_rate_limiter(
    ControllerRateLimiterOptions options = {}) {
  return std::make_shared<MaxOfRateLimiter<Key>>(std::vector<std::shared_ptr<RateLimiter<Key>>>{
      std::make_shared<ItemExponentialFailureRateLimiter<Key, Hash, KeyEqual>>(options.base_delay,
                                                                               options.max_delay),
      std::make_shared<BucketRateLimiter<Key>>(options.qps, options.burst,
                                               std::move(options.clock))});
}

}  // namespace rg::workqueue
