// delay_heap.hpp: the keys waiting out an add_after() delay, ordered by ready time (client-go's
// waitForPriorityQueue plus its knownEntries map). A key delayed twice keeps the earlier ready
// time. Pure data structure: no clock, no lock, no timer, so its ordering is tested directly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "workqueue/clock.hpp"
#include "workqueue/detail/key_hash.hpp"

namespace rg::workqueue::detail {

template <class Key, class Hash = KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class DelayHeap {
 public:
  // Schedules `key` for `ready_at`, unless it is already scheduled no later than that. Returns
  // true when this moved the heap's earliest ready time earlier (the wake-up must be re-armed).
  bool push(const Key& key, TimePoint ready_at) {
    auto [it, inserted] = ready_at_.try_emplace(key, ready_at);
    if (!inserted) {
      if (it->second <= ready_at) return false;
      it->second = ready_at;  // the older, later heap entry is now stale and skipped when popped
    }
    const std::optional<TimePoint> before = next_ready();
    heap_.push_back(Scheduled{ready_at, next_seq_++, key});
    std::push_heap(heap_.begin(), heap_.end());
    return !before || ready_at < *before;
  }

  // The earliest ready time, if any key is waiting.
  std::optional<TimePoint> next_ready() {
    drop_stale();
    if (heap_.empty()) return std::nullopt;
    return heap_.front().ready_at;
  }

  // Removes every key whose ready time is at or before `now`, calling `ready(Key&&)` for each
  // in ready-time order (ties in scheduling order).
  template <class F>
  void pop_ready(TimePoint now, F&& ready) {
    while (true) {
      drop_stale();
      if (heap_.empty() || heap_.front().ready_at > now) return;
      std::pop_heap(heap_.begin(), heap_.end());
      Key key = std::move(heap_.back().key);
      heap_.pop_back();
      ready_at_.erase(key);
      ready(std::move(key));
    }
  }

  std::size_t size() const { return ready_at_.size(); }

  void clear() {
    heap_.clear();
    ready_at_.clear();
  }

 private:
  struct Scheduled {
    TimePoint ready_at;
    std::uint64_t seq;
    Key key;
    // The std heap functions build a max-heap: order so the earliest comes out first.
    bool operator<(const Scheduled& other) const {
      if (ready_at != other.ready_at) return ready_at > other.ready_at;
      return seq > other.seq;
    }
  };

  // Pops heap entries superseded by an earlier push of the same key.
  void drop_stale() {
    while (!heap_.empty()) {
      const Scheduled& top = heap_.front();
      auto it = ready_at_.find(top.key);
      if (it != ready_at_.end() && it->second == top.ready_at) return;
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.pop_back();
    }
  }

  std::vector<Scheduled> heap_;
  boost::unordered_flat_map<Key, TimePoint, Hash, KeyEqual> ready_at_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace rg::workqueue::detail
