// metrics.hpp: client-go's workqueue metrics (workqueue_depth, _adds_total,
// _queue_duration_seconds, _work_duration_seconds, _unfinished_work_seconds,
// _longest_running_processor_seconds, _retries_total, label `name`). Queues keep plain counters
// under their own lock; a MetricsProvider asks each registered queue for a snapshot only when
// Prometheus scrapes, so metrics cost next to nothing while nobody looks. prometheus-cpp stays out
// of this header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workqueue/latency_histogram.hpp"

namespace prometheus {
class Collectable;
}

namespace rg::workqueue {

namespace detail {
struct MetricsState;
}

// One queue's metric values at one instant.
struct QueueMetricsSnapshot {
  std::int64_t depth = 0;
  std::uint64_t adds = 0;
  std::uint64_t retries = 0;
  LatencyHistogram queue_duration;
  LatencyHistogram work_duration;
  double unfinished_work_seconds = 0;
  double longest_running_processor_seconds = 0;
};

// The set of named queues exposed to Prometheus. Create one, pass it in QueueOptions::metrics,
// and register collectable() with the prometheus::Registry that /metrics serialises.
class MetricsProvider {
 public:
  using SnapshotFn = std::function<QueueMetricsSnapshot()>;

  // Keeps a queue listed while alive; the queue owns it.
  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept;
    Registration& operator=(Registration&& other) noexcept;
    ~Registration();

   private:
    friend class MetricsProvider;
    Registration(std::shared_ptr<detail::MetricsState> state, std::uint64_t id);
    void reset();
    std::shared_ptr<detail::MetricsState> state_;
    std::uint64_t id_ = 0;
  };

  MetricsProvider();
  ~MetricsProvider();
  MetricsProvider(const MetricsProvider&) = delete;
  MetricsProvider& operator=(const MetricsProvider&) = delete;

  // Lists a queue under `name`. Throws std::invalid_argument if the name is empty or already used
  // by a live queue (two queues under one name would report each other's values).
  [[nodiscard]] Registration register_queue(std::string name, SnapshotFn snapshot);

  // Every registered queue's values, in name order (what a scrape sees).
  std::vector<std::pair<std::string, QueueMetricsSnapshot>> collect() const;

  // A prometheus-cpp Collectable producing the workqueue_* families; register it in a Registry.
  std::shared_ptr<prometheus::Collectable> collectable() const;

 private:
  std::shared_ptr<detail::MetricsState> state_;
};

}  // namespace rg::workqueue
