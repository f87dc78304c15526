// WriteExpectations: which Deployments the operator has just written and whose new state the
// cache has not shown yet (client-go's controller expectations, keyed by resourceVersion).
//
// A Deployment is re-queued while the cache may still show it as it was before the operator's
// last write (by a pod event, or by the echo of the first of two writes: opting out is a scale
// and then a merge patch). Reconciled from that stale state, it would plan the same scale again
// and write it with a stale precondition: a 409 and a retry, in the middle of a burst. So each
// successful write notes the resourceVersion it replaced, and a reconcile that finds one of those
// in the cache waits for the echo (which re-queues the key) instead. Any other resourceVersion,
// or the timeout, ends the wait.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::op {

class WriteExpectations {
 public:
  using Clock = std::chrono::steady_clock;

  /// `timeout`: how long a cache that never catches up is waited for (a lost echo).
  explicit WriteExpectations(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  /// A write of `key` conditional on `replaced` succeeded at `now`.
  void wrote(std::string_view key, std::string_view replaced, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(std::string(key), Entry{}).first;
    it->second.replaced.emplace_back(replaced);
    it->second.until = now + timeout_;
  }

  /// How long to wait when the cache shows `cached` for `key`, a resourceVersion the operator's
  /// writes replaced; nullopt (and the key forgotten) when the cache has caught up or the wait
  /// has timed out.
  std::optional<std::chrono::milliseconds> pending(std::string_view key, std::string_view cached,
                                                   Clock::time_point now) {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    const Entry& entry = it->second;
    const bool behind =
        std::find(entry.replaced.begin(), entry.replaced.end(), cached) != entry.replaced.end();
    if (behind && now < entry.until) {
      return std::chrono::ceil<std::chrono::milliseconds>(entry.until - now);
    }
    entries_.erase(it);
    return std::nullopt;
  }

  void forget(std::string_view key) {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it != entries_.end()) entries_.erase(it);
  }

 private:
  struct Entry {
    std::vector<std::string> replaced;  ///< resourceVersions the key's recent writes replaced
    Clock::time_point until;
  };

  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace rg::op
