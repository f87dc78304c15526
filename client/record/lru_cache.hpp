// LruCache: a map of string keys holding at most `capacity` entries, forgetting the least recently
// used one when a new key would exceed it. The event correlator keeps its three memories in these
// (client-go bounds the same caches at 4096 entries), so a long-running component that sees many
// objects does not grow without limit. Not synchronised: its owner serialises access.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace rg::client {

template <class Value>
class LruCache {
 public:
  /// `capacity` below 1 counts as 1.
  explicit LruCache(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  /// The value under `key`, now the most recently used; nullptr when absent.
  Value* get(const std::string& key) {
    const auto hit = index_.find(key);
    if (hit == index_.end()) return nullptr;
    entries_.splice(entries_.end(), entries_, hit->second);
    return &hit->second->second;
  }

  /// Stores `value` under `key` as the most recently used entry, evicting the least recently used
  /// one if the cache is over capacity.
  Value& put(const std::string& key, Value value) {
    if (Value* existing = get(key)) {
      *existing = std::move(value);
      return *existing;
    }
    entries_.emplace_back(key, std::move(value));
    index_.emplace(key, std::prev(entries_.end()));
    if (entries_.size() > capacity_) {
      index_.erase(entries_.front().first);
      entries_.pop_front();
    }
    return entries_.back().second;
  }

  std::size_t size() const { return entries_.size(); }

 private:
  using Entries = std::list<std::pair<std::string, Value>>;  // least recently used first
  std::size_t capacity_;
  Entries entries_;
  std::unordered_map<std::string, typename Entries::iterator> index_;
};

}  // namespace rg::client
