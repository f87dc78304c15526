// latency_histogram.hpp: the cheap histogram behind workqueue_queue_duration_seconds and
// workqueue_work_duration_seconds. Plain counters, updated under the queue's own lock, so an
// observation costs a few compares and adds; Prometheus reads it only when scraped.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace rg::workqueue {

class LatencyHistogram {
 public:
  // client-go's buckets: prometheus.ExponentialBuckets(10e-9, 10, 10), i.e. 10ns .. 10s.
  static constexpr std::array<std::int64_t, 10> kUpperBoundsNs = {
      10,        100,        1'000,       10'000,        100'000,
      1'000'000, 10'000'000, 100'000'000, 1'000'000'000, 10'000'000'000};

  void observe(std::chrono::nanoseconds d) {
    const std::int64_t ns = d.count() < 0 ? 0 : d.count();
    std::size_t i = 0;
    while (i < kUpperBoundsNs.size() && ns > kUpperBoundsNs[i]) ++i;
    ++counts_[i];
    sum_ns_ += ns;
  }

  // Observations per bucket (not cumulative); the last one is +Inf.
  const std::array<std::uint64_t, kUpperBoundsNs.size() + 1>& counts() const { return counts_; }
  std::uint64_t count() const {
    std::uint64_t n = 0;
    for (auto c : counts_) n += c;
    return n;
  }
  double sum_seconds() const { return static_cast<double>(sum_ns_) / 1e9; }

 private:
  std::array<std::uint64_t, kUpperBoundsNs.size() + 1> counts_{};
  std::int64_t sum_ns_ = 0;
};

}  // namespace rg::workqueue
