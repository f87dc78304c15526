// Events on the objects the operator acts on, aggregated like client-go's recorder: a repeat of
// the same event (same object, type, reason and message) bumps the count of the existing Event
// instead of creating another, and a per-object token bucket stops event storms.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

#include "client/model/event.hpp"

namespace rg::op {

/// Where Events go: the API server in production, a vector in tests.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual boost::asio::awaitable<void> create(const client::Event& event) = 0;
  /// Writes the new count, lastTimestamp and message of an Event created before.
  virtual boost::asio::awaitable<void> update_count(const client::Event& event) = 0;
};

struct EventRecorderConfig {
  std::string component = "replica-guard";  ///< source.component and reportingComponent
  std::string instance;                     ///< reportingInstance: the pod's name
  std::size_t cache_size = 4096;            ///< distinct events remembered for aggregation
  int burst = 25;                           ///< client-go's spam filter: 25 events per object,
  std::chrono::seconds refill{300};         ///< then one more every 5 minutes
};

class EventRecorder {
 public:
  using WallClock = std::chrono::system_clock;

  EventRecorder(EventSink& sink, EventRecorderConfig config,
                std::function<WallClock::time_point()> now = WallClock::now);

  /// Records an Event about `object`; `type` is "Normal" or "Warning". Never throws for a failed
  /// write: the failure is logged, and reconciling goes on.
  boost::asio::awaitable<void> record(const client::ObjectReference& object, std::string_view type,
                                      std::string_view reason, std::string_view message);

  /// Events held back by the spam filter so far (they are logged, not written).
  std::uint64_t suppressed() const;

 private:
  struct Bucket {
    double tokens;
    WallClock::time_point last;
  };
  bool take_token(const std::string& object_key, WallClock::time_point now);

  EventSink& sink_;
  EventRecorderConfig config_;
  std::function<WallClock::time_point()> now_;
  mutable std::mutex mutex_;  // workers on several threads record at once; never held across I/O
  // Aggregation cache, least recently used first.
  std::list<std::pair<std::string, client::Event>> lru_;
  std::unordered_map<std::string, decltype(lru_)::iterator> cache_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::uint64_t suppressed_ = 0;
};

}  // namespace rg::op
