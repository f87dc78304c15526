// ExpiringCache: a bounded key -> value cache whose entries expire after their own TTL, as
// apiserver's cached token authenticator and delegating authorizer keep review answers. Pure:
// the caller passes the time, so the policy is testable without a clock. Not thread-safe.
// Full: expired entries go first, then the entry closest to expiring.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace rg::op {

template <class Value>
class ExpiringCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ExpiringCache(std::size_t max_entries) : max_entries_(max_entries) {}

  /// The value stored for `key` if it has not expired at `now`.
  std::optional<Value> get(const std::string& key, Clock::time_point now) const {
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.expires <= now) return std::nullopt;
    return it->second.value;
  }

  /// Stores `value` for `key` until `now + ttl`, making room if the cache is full.
  void put(const std::string& key, Value value, Clock::duration ttl, Clock::time_point now) {
    if (max_entries_ == 0) return;
    erase(key);
    while (entries_.size() >= max_entries_) {
      const std::string soonest = by_expiry_.begin()->second;
      erase(soonest);
    }
    const auto expires = now + ttl;
    const auto position = by_expiry_.emplace(expires, key);
    entries_.emplace(key, Entry{std::move(value), expires, position});
  }

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Value value;
    Clock::time_point expires;
    typename std::multimap<Clock::time_point, std::string>::iterator position;
  };

  void erase(const std::string& key) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return;
    by_expiry_.erase(it->second.position);
    entries_.erase(it);
  }

  std::size_t max_entries_;
  std::map<std::string, Entry, std::less<>> entries_;
  std::multimap<Clock::time_point, std::string> by_expiry_;  // soonest to expire first
};

}  // namespace rg::op
