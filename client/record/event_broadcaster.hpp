// EventBroadcaster: an EventRecorder that is asynchronous like client-go's
// record.EventBroadcaster, so writing Events never sits on a reconcile's path.
//
//  - record() builds the Event (source, reporting controller and instance, timestamps, a fresh
//    name) and appends it to a bounded queue (client-go's 1000), then returns. When the queue is
//    full (the API server is slow or away) the Event is dropped, logged and counted in
//    EventBroadcasterMetrics (replica-guard: replica_guard_events_dropped_total{reason=
//    "queue_full"}). Safe from any thread.
//  - One background coroutine, begun by start(), takes the Events in the order they were recorded,
//    runs them through the EventCorrelator (aggregation, repeat counting, spam filter) and writes
//    them: a new Event is created; a repeat patches count, lastTimestamp and message of the first
//    (created again if it has expired meanwhile). A refusal by the API server drops the Event; no
//    answer at all is retried after a sleep (the first randomised), up to 12 tries.
//  - shut_down(): stops taking Events, writes what is queued (one try each, as client-go after
//    Shutdown) and returns once done, or after `flush_timeout`, when the write in flight is
//    cancelled and the rest is dropped (reason "shutdown", logged with its number).
//
// Usage: start(executor) once the io_context runs; controllers record(); after the last
// reconcile, co_await shut_down() before destroying the broadcaster, its sink or its metrics:
//
//   client::RestEventSink sink(rest_client);
//   client::EventBroadcaster events(sink, {.component = "my-operator", .instance = pod_name});
//   events.start(io.get_executor());
//   events.record(reference, "Normal", "Synced", "all good");   // from any thread
//   co_await events.shut_down();                                // flushes, bounded
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <spdlog/common.h>

#include "client/record/event_broadcaster_metrics.hpp"
#include "client/record/event_correlator.hpp"
#include "client/record/event_recorder.hpp"

namespace rg::client {

/// A log line of the broadcaster: level, message and structured fields (key, value).
using EventLogField = std::pair<std::string_view, std::string_view>;
using EventLog = std::function<void(spdlog::level::level_enum level, std::string_view message,
                                    std::initializer_list<EventLogField> fields)>;

struct EventBroadcasterConfig {
  std::string component;          ///< source.component and reportingComponent
  std::string instance;           ///< source.host and reportingInstance: the pod's name
  std::size_t queue_size = 1000;  ///< Events waiting to be written, at most
  int max_tries = 12;             ///< writes of one Event that got no answer
  std::chrono::milliseconds retry_sleep{std::chrono::seconds(10)};   ///< between those tries
  std::chrono::milliseconds flush_timeout{std::chrono::seconds(5)};  ///< for shut_down()
  EventCorrelatorOptions correlator{};
  /// Where its log lines go; unset: spdlog's default logger, fields as ` key=value`.
  EventLog log{};
  /// The time Events are stamped with (and correlated by).
  std::function<std::chrono::system_clock::time_point()> clock = std::chrono::system_clock::now;
};

class EventBroadcaster final : public EventRecorder {
 public:
  /// Reports to `metrics` when given (it must outlive the broadcaster). Throws
  /// std::invalid_argument without a component.
  EventBroadcaster(EventSink& sink, EventBroadcasterConfig config,
                   EventBroadcasterMetrics* metrics = nullptr);
  /// Ends a sender still running (cancelled, the rest dropped); await shut_down() instead.
  ~EventBroadcaster() override;
  EventBroadcaster(const EventBroadcaster&) = delete;
  EventBroadcaster& operator=(const EventBroadcaster&) = delete;

  void record(const ObjectReference& object, std::string_view type, std::string_view reason,
              std::string_view message) override;

  /// Begins writing on `executor` (on a strand of its own); Events recorded before wait in the
  /// queue. Call once; after shut_down() it does nothing.
  void start(const boost::asio::any_io_executor& executor);

  /// Stops taking Events, flushes the queue within flush_timeout and ends the writer (see
  /// above). Never throws; Events recorded afterwards are dropped (reason "shutdown"). Without a
  /// start() the queued Events are dropped at once.
  boost::asio::awaitable<void> shut_down();

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the writer coroutine, which may outlive a call
};

}  // namespace rg::client
