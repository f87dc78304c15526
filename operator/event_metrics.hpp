// EventMetrics: the Prometheus series of the event broadcaster, so a slow API server or an event
// storm shows on /metrics instead of only in logs:
//   replica_guard_events_written_total{verb="create|patch"}   Events the API server accepted
//   replica_guard_events_dropped_total{reason=...}            Events recorded but never written
//   replica_guard_events_queue_depth                           Events waiting to be written
// Every series starts at 0. Thread-safe (prometheus-cpp metrics are atomic).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace prometheus {
class Counter;
class Gauge;
class Registry;
}  // namespace prometheus

namespace rg::op {

enum class EventWrite { kCreate, kPatch };

/// Why a recorded Event was not written.
enum class EventDrop {
  kInvalid,           ///< a type other than Normal or Warning
  kQueueFull,         ///< the queue was full: the API server is slow or unreachable
  kSpamFilter,        ///< the object used up its Event budget (client-go's spam filter)
  kRejected,          ///< the API server refused it (an API error other than 404 on a patch)
  kRetriesExhausted,  ///< no answer from the API server after every try
  kShutdown,          ///< still queued or in flight when the flush at shutdown ran out of time
};

std::string_view to_string(EventDrop reason);

class EventMetrics {
 public:
  explicit EventMetrics(prometheus::Registry& registry);

  void written(EventWrite verb);
  void dropped(EventDrop reason, std::size_t count = 1);
  void queue_depth(std::size_t depth);

  double written_total(EventWrite verb) const;
  double dropped_total(EventDrop reason) const;
  double queue_depth() const;

 private:
  std::array<prometheus::Counter*, 2> written_;
  std::array<prometheus::Counter*, 6> dropped_;
  prometheus::Gauge* depth_;
};

}  // namespace rg::op
