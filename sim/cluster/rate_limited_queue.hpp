// RateLimitedTimedQueue: the node lifecycle controller's per-zone queue of nodes waiting for
// their NoExecute taint (KK pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go): a
// UniqueQueue of node names ordered by when they were added, drained by Try() no faster than a
// token bucket (rate::Bucket) allows (flowcontrol.NewTokenBucketRateLimiter(qps, burst 1); qps 0
// never allows). A processed node stays in the queue's set, so adding it again does nothing until
// it is removed (RemoveFromQueue vs Remove).
// SwapLimiter changes the rate as the zone's state changes. Pure: time is passed in.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rate/bucket.hpp"

namespace rg::sim::cluster {

class RateLimitedTimedQueue {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimitedTimedQueue(double qps, Clock::time_point now);

  /// Adds `node` unless it is queued or was processed since it was last removed; true when
  /// added.
  bool add(const std::string& node, Clock::time_point now);
  /// Removes `node` from the queue and the set; true when it was in either.
  bool remove(const std::string& node);
  bool empty() const { return queue_.empty(); }

  /// Processes the queue head by head while the limiter gives a token (each head costs one,
  /// as in Try): `action` returns true when done (the node leaves the queue), false to retry
  /// it later (it goes back in line).
  void try_process(Clock::time_point now, const std::function<bool(const std::string&)>& action);
  /// A new rate (0: stop); a limiter that was out of tokens hands on its emptiness (burst 1).
  void swap_limiter(double qps, Clock::time_point now);
  double qps() const { return qps_; }
  /// When try_process could next do something: nullopt when empty or stopped.
  std::optional<Clock::time_point> next_attempt(Clock::time_point now) const;

 private:
  /// Takes the token if there is one now (the limiter's TryAccept).
  bool try_accept(Clock::time_point now);

  struct Entry {
    std::string node;
    Clock::time_point process_at;
  };
  double qps_;
  /// A token bucket with burst 1, starting full; none at qps 0 (never allows).
  std::optional<rate::Bucket<Clock>> limiter_;
  std::vector<Entry> queue_;   // ordered by process_at (then insertion)
  std::set<std::string> set_;  // queued or processed
};

}  // namespace rg::sim::cluster
