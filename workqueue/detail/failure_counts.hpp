// failure_counts.hpp: how many times each item has failed since it was last forgotten -- the state
// the per-item rate limiters (exponential, fast-slow) keep behind when(), forget() and
// num_requeues(). Thread-safe.
#pragma once

#include <mutex>
#include <unordered_map>

namespace rg::workqueue::detail {

template <class Key, class Hash, class KeyEqual>
class FailureCounts {
 public:
  /// Counts one more failure of `key`; returns how many it had before this one.
  int add(const Key& key) {
    std::lock_guard lock(mu_);
    return counts_[key]++;
  }

  void forget(const Key& key) {
    std::lock_guard lock(mu_);
    counts_.erase(key);
  }

  int get(const Key& key) const {
    std::lock_guard lock(mu_);
    auto it = counts_.find(key);
    return it == counts_.end() ? 0 : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<Key, int, Hash, KeyEqual> counts_;
};

}  // namespace rg::workqueue::detail
