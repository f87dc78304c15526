// The two ends of recording Events, as in client-go's tools/record: an EventRecorder is what a
// controller calls to say what it did (it returns at once; see EventBroadcaster for the queue,
// aggregation and the background writer behind it), and an EventSink is where the written Events
// go (RestEventSink, the API server, in production; a fake in tests).
//
//   void reconcile(client::EventRecorder& events, const ObjectReference& deployment) {
//     events.record(deployment, "Normal", "ScaledUp", "scaled from 2 to 3");  // never blocks
//   }
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string_view>

#include "client/model/event.hpp"

namespace rg::client {

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  /// Records an Event about `object`; `type` is "Normal" or "Warning". Never blocks on the API
  /// server and never throws: the Event is queued and written in the background, or dropped
  /// (logged and counted) when it cannot be.
  virtual void record(const ObjectReference& object, std::string_view type, std::string_view reason,
                      std::string_view message) = 0;
};

/// Where Events are written. Both calls throw client::ApiError for an API server's refusal and
/// other exceptions when no answer came; they honour their coroutine's cancellation.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual boost::asio::awaitable<void> create(const Event& event) = 0;
  /// Writes the new count, lastTimestamp and message of an Event created before.
  virtual boost::asio::awaitable<void> update_count(const Event& event) = 0;
};

}  // namespace rg::client
