// metrics.cpp: the registry of named queues and the prometheus-cpp Collectable over it.
#include "workqueue/metrics.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace rg::workqueue {

struct detail::MetricsState {
  struct Entry {
    std::string name;
    MetricsProvider::SnapshotFn snapshot;
  };
  mutable std::mutex mu;
  std::uint64_t next_id = 1;
  std::map<std::uint64_t, Entry> entries;
};

MetricsProvider::Registration::Registration(std::shared_ptr<detail::MetricsState> state,
                                            std::uint64_t id)
    : state_(std::move(state)), id_(id) {}

MetricsProvider::Registration::Registration(Registration&& other) noexcept
    : state_(std::move(other.state_)), id_(std::exchange(other.id_, 0)) {}

MetricsProvider::Registration& MetricsProvider::Registration::operator=(
    Registration&& other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

MetricsProvider::Registration::~Registration() { reset(); }

void MetricsProvider::Registration::reset() {
  if (!state_) return;
  // This may hold the last reference to the state (the provider is gone): release it only
  // after the lock, which is declared after it.
  const std::shared_ptr<detail::MetricsState> state = std::move(state_);
  // Taking the lock also waits for a scrape that is calling this queue's snapshot right now.
  std::lock_guard lock(state->mu);
  state->entries.erase(id_);
}

MetricsProvider::MetricsProvider() : state_(std::make_shared<detail::MetricsState>()) {}
MetricsProvider::~MetricsProvider() = default;

MetricsProvider::Registration MetricsProvider::register_queue(std::string name,
                                                              SnapshotFn snapshot) {
  if (name.empty()) {
    throw std::invalid_argument(
        "workqueue metrics: a queue with metrics needs a name (QueueOptions::name); "
        "it becomes the `name` label");
  }
  std::lock_guard lock(state_->mu);
  for (const auto& [id, entry] : state_->entries) {
    if (entry.name == name) {
      throw std::invalid_argument("workqueue metrics: a queue named \"" + name +
                                  "\" is already registered; give each queue its own name");
    }
  }
  const std::uint64_t id = state_->next_id++;
  state_->entries.emplace(id, detail::MetricsState::Entry{std::move(name), std::move(snapshot)});
  return Registration(state_, id);
}

namespace {

std::vector<std::pair<std::string, QueueMetricsSnapshot>> collect_state(
    const detail::MetricsState& state) {
  std::lock_guard lock(state.mu);
  std::vector<std::pair<std::string, QueueMetricsSnapshot>> out;
  out.reserve(state.entries.size());
  for (const auto& [id, entry] : state.entries) out.emplace_back(entry.name, entry.snapshot());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

prometheus::ClientMetric labelled(const std::string& name) {
  prometheus::ClientMetric m;
  m.label.push_back({"name", name});
  return m;
}

prometheus::ClientMetric::Histogram to_prometheus(const LatencyHistogram& h) {
  prometheus::ClientMetric::Histogram out;
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < LatencyHistogram::kUpperBoundsNs.size(); ++i) {
    cumulative += h.counts()[i];
    out.bucket.push_back(
        {cumulative, static_cast<double>(LatencyHistogram::kUpperBoundsNs[i]) / 1e9});
  }
  cumulative += h.counts().back();
  out.bucket.push_back({cumulative, std::numeric_limits<double>::infinity()});
  out.sample_count = cumulative;
  out.sample_sum = h.sum_seconds();
  return out;
}

class Collector final : public prometheus::Collectable {
 public:
  explicit Collector(std::shared_ptr<const detail::MetricsState> state)
      : state_(std::move(state)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    const auto queues = collect_state(*state_);
    std::vector<prometheus::MetricFamily> families;
    auto family = [&](const char* name, const char* help, MetricType type, auto fill) {
      prometheus::MetricFamily f{name, help, type, {}};
      for (const auto& [queue, snap] : queues) {
        auto m = labelled(queue);
        fill(m, snap);
        f.metric.push_back(std::move(m));
      }
      families.push_back(std::move(f));
    };
    family("workqueue_depth", "Current depth of workqueue", MetricType::Gauge,
           [](auto& m, const auto& s) { m.gauge.value = static_cast<double>(s.depth); });
    family("workqueue_adds_total", "Total number of adds handled by workqueue", MetricType::Counter,
           [](auto& m, const auto& s) { m.counter.value = static_cast<double>(s.adds); });
    family("workqueue_queue_duration_seconds",
           "How long in seconds an item stays in workqueue before being requested.",
           MetricType::Histogram,
           [](auto& m, const auto& s) { m.histogram = to_prometheus(s.queue_duration); });
    family("workqueue_work_duration_seconds",
           "How long in seconds processing an item from workqueue takes.", MetricType::Histogram,
           [](auto& m, const auto& s) { m.histogram = to_prometheus(s.work_duration); });
    family("workqueue_unfinished_work_seconds",
           "How many seconds of work has done that is in progress and hasn't been observed by "
           "work_duration. Large values indicate stuck threads. One can deduce the number of "
           "stuck threads by observing the rate at which this increases.",
           MetricType::Gauge,
           [](auto& m, const auto& s) { m.gauge.value = s.unfinished_work_seconds; });
    family("workqueue_longest_running_processor_seconds",
           "How many seconds has the longest running processor for workqueue been running.",
           MetricType::Gauge,
           [](auto& m, const auto& s) { m.gauge.value = s.longest_running_processor_seconds; });
    family("workqueue_retries_total", "Total number of retries handled by workqueue",
           MetricType::Counter,
           [](auto& m, const auto& s) { m.counter.value = static_cast<double>(s.retries); });
    return families;
  }

 private:
  std::shared_ptr<const detail::MetricsState> state_;
};

}  // namespace

std::vector<std::pair<std::string, QueueMetricsSnapshot>> MetricsProvider::collect() const {
  return collect_state(*state_);
}

std::shared_ptr<prometheus::Collectable> MetricsProvider::collectable() const {
  return std::make_shared<Collector>(state_);
}

}  // namespace rg::workqueue
