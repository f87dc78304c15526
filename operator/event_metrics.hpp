// EventMetrics: the Prometheus series of the event broadcaster (client/record), so a slow API
// server or an event storm shows on /metrics instead of only in logs:
//   replica_guard_events_written_total{verb="create|patch"}   Events the API server accepted
//   replica_guard_events_dropped_total{reason=...}            Events recorded but never written
//   replica_guard_events_queue_depth                           Events waiting to be written
// Every series starts at 0. Thread-safe (prometheus-cpp metrics are atomic).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "client/record/event_broadcaster_metrics.hpp"

namespace prometheus {
class Counter;
class Gauge;
class Registry;
}  // namespace prometheus

namespace rg::op {

class EventMetrics final : public client::EventBroadcasterMetrics {
 public:
  explicit EventMetrics(prometheus::Registry& registry);

  void written(client::EventWrite verb) override;
  void dropped(client::EventDrop reason, std::size_t count) override;
  void queue_depth(std::size_t depth) override;

  double written_total(client::EventWrite verb) const;
  double dropped_total(client::EventDrop reason) const;
  double queue_depth() const;

 private:
  std::array<prometheus::Counter*, 2> written_;
  std::array<prometheus::Counter*, 6> dropped_;
  prometheus::Gauge* depth_;
};

}  // namespace rg::op
