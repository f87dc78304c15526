// max_of_rate_limiter.hpp: combines limiters by taking the longest delay of all of them
// (client-go's MaxOfRateLimiter); every limiter sees every when() and forget().
#pragma once

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "workqueue/rate_limiter.hpp"

namespace rg::workqueue {

template <class Key>
class MaxOfRateLimiter final : public RateLimiter<Key> {
 public:
  explicit MaxOfRateLimiter(std::vector<std::shared_ptr<RateLimiter<Key>>> limiters)
      : limiters_(std::move(limiters)) {
    if (limiters_.empty()) throw std::invalid_argument("MaxOfRateLimiter: needs a limiter");
    for (const auto& l : limiters_) {
      if (!l) throw std::invalid_argument("MaxOfRateLimiter: a limiter is null");
    }
  }

  Duration when(const Key& key) override {
    Duration longest = Duration::zero();
    for (const auto& l : limiters_) longest = std::max(longest, l->when(key));
    return longest;
  }

  void forget(const Key& key) override {
    for (const auto& l : limiters_) l->forget(key);
  }

  int num_requeues(const Key& key) override {
    int most = 0;
    for (const auto& l : limiters_) most = std::max(most, l->num_requeues(key));
    return most;
  }

 private:
  const std::vector<std::shared_ptr<RateLimiter<Key>>> limiters_;
};

}  // namespace rg::workqueue
