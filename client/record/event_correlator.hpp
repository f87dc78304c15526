// EventCorrelator: what client-go's record.EventCorrelator (tools/record/events_cache.go,
// v0.35) does to each core/v1 Event before it is written, so that a busy or failing controller
// cannot flood the API server with Events. Used by the operator's EventBroadcaster and by
// kube-sim's simulated components (sim/cluster/event_recorder.*), as both use client-go's.
// In order, for each Event as the recorder made it (count 1, a fresh name):
//  1. Aggregation: Events that differ only in their message (same object, type, reason and
//     reporter) are similar. From the 10th distinct message within 10 minutes of the previous
//     similar one, they are written as one Event with the message prefixed
//     "(combined from similar events): ".
//  2. Counting: an exact repeat (same object, type, reason and message, or the same combined
//     Event) of one seen before is not created again: it becomes a PATCH of the first one's count
//     (+1), lastTimestamp and message, keeping its name and firstTimestamp.
//  3. Spam filter: per source, object and type, a token bucket of 25 Events refilled with one every
//  5 minutes;
//     an Event without a token is held back (still counted, so the next one written carries the
//     true count).
// Each memory is an LRU cache of 4096 entries. Pure: no I/O, no lock, the time is an argument,
// so the broadcaster's single sender owns one and tests drive it directly.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "client/model/event.hpp"
#include "client/record/lru_cache.hpp"
#include "rate/bucket.hpp"

namespace rg::client {

/// client-go's CorrelatorOptions and their defaults.
struct EventCorrelatorOptions {
  std::size_t cache_size = 4096;                 ///< entries in each LRU cache
  int spam_burst = 25;                           ///< Events one object may have at once ...
  std::chrono::seconds spam_refill{300};         ///< ... then one more per this period (> 0)
  std::size_t aggregate_max_events = 10;         ///< distinct similar messages before combining
  std::chrono::seconds aggregate_interval{600};  ///< similar Events further apart start afresh
};

/// The prefix of a combined Event's message.
inline constexpr std::string_view kCombinedEventPrefix = "(combined from similar events): ";

/// A new Event's name, as client-go makes it: the object's name, a dot, and the time in
/// nanoseconds since the epoch in hex.
std::string event_name(std::string_view object_name, std::chrono::system_clock::time_point now);

class EventCorrelator {
 public:
  using WallClock = std::chrono::system_clock;

  explicit EventCorrelator(EventCorrelatorOptions options = {});

  /// The Event to write for `event`, recorded at `now`: a new one (count 1, to create) or a
  /// repeat (count > 1, to patch onto the Event of that name). std::nullopt when the spam filter
  /// holds it back.
  std::optional<Event> correlate(Event event, WallClock::time_point now);

 private:
  struct SimilarEvents {
    std::unordered_set<std::string> messages;
    WallClock::time_point last;
  };
  struct Observation {
    std::int32_t count;
    std::string first_timestamp;
    std::string name;
  };

  std::string aggregate(Event& event, WallClock::time_point now);
  void observe(Event& event, const std::string& key);
  bool allowed(const Event& event, WallClock::time_point now);

  EventCorrelatorOptions options_;
  LruCache<SimilarEvents> similar_;
  LruCache<Observation> observed_;
  LruCache<rate::Bucket<WallClock>> buckets_;
};

}  // namespace rg::client
