// EventBroadcasterMetrics: what the EventBroadcaster reports as it works -- Events written, Events
// dropped and why, the queue's depth -- for the program to export (replica-guard's Prometheus
// series are operator/event_metrics.hpp). Implementations are called from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace rg::client {

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

/// "invalid", "queue_full", "spam_filter", "rejected", "retries_exhausted", "shutdown".
std::string_view to_string(EventDrop reason);

class EventBroadcasterMetrics {
 public:
  virtual ~EventBroadcasterMetrics() = default;
  virtual void written(EventWrite verb) = 0;
  virtual void dropped(EventDrop reason, std::size_t count) = 0;
  virtual void queue_depth(std::size_t depth) = 0;
};

}  // namespace rg::client
