// CountingMetrics: an EventBroadcasterMetrics that keeps its counts in memory, for the
// broadcaster's tests to read (programs export theirs; replica-guard's are Prometheus series).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

#include "client/record/event_broadcaster_metrics.hpp"

namespace rg::client::test {

class CountingMetrics final : public EventBroadcasterMetrics {
 public:
  void written(EventWrite verb) override { ++written_[static_cast<std::size_t>(verb)]; }
  void dropped(EventDrop reason, std::size_t count) override {
    dropped_[static_cast<std::size_t>(reason)] += count;
  }
  void queue_depth(std::size_t depth) override { depth_ = depth; }

  double written_total(EventWrite verb) const {
    return static_cast<double>(written_[static_cast<std::size_t>(verb)].load());
  }
  double dropped_total(EventDrop reason) const {
    return static_cast<double>(dropped_[static_cast<std::size_t>(reason)].load());
  }
  double queue_depth() const { return static_cast<double>(depth_.load()); }

 private:
  std::array<std::atomic<std::size_t>, 2> written_{};
  std::array<std::atomic<std::size_t>, 6> dropped_{};
  std::atomic<std::size_t> depth_{0};
};

}  // namespace rg::client::test
