// Names of the reasons an Event is dropped (see event_broadcaster_metrics.hpp).
#include "client/record/event_broadcaster_metrics.hpp"

namespace rg::client {

std::string_view to_string(EventDrop reason) {
  switch (reason) {
    case EventDrop::kInvalid:
      return "invalid";
    case EventDrop::kQueueFull:
      return "queue_full";
    case EventDrop::kSpamFilter:
      return "spam_filter";
    case EventDrop::kRejected:
      return "rejected";
    case EventDrop::kRetriesExhausted:
      return "retries_exhausted";
    case EventDrop::kShutdown:
      return "shutdown";
  }
  return "unknown";
}

}  // namespace rg::client
