// Aggregation, counting and the spam filter of Events (see event_correlator.hpp): client-go
// v0.35.0 tools/record/events_cache.go (EventAggregate, eventObserve, Filter, EventCorrelate).
#include "client/record/event_correlator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "client/model/time.hpp"

namespace rg::client {

namespace {

// The involved object as its source sees it: the spam filter's key, and the start of the others.
std::string object_key(const Event& e) {
  const auto& o = e.involved_object;
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", e.source.component, e.source.host,
                     o.kind, o.namespace_, o.name, o.uid, o.api_version);
}

// Similar Events share this key: everything but the message.
std::string similar_key(const Event& e) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", object_key(e), e.type, e.reason,
                     e.reporting_component, e.reporting_instance);
}

// Exact repeats share this key.
std::string repeat_key(const Event& e) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", object_key(e), e.involved_object.field_path,
                     e.type, e.reason, e.message);
}

}  // namespace

std::string event_name(std::string_view object_name, std::chrono::system_clock::time_point now) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  return fmt::format("{}.{:x}", object_name, nanos);
}

EventCorrelator::EventCorrelator(EventCorrelatorOptions options)
    : options_(options),
      similar_(options.cache_size),
      observed_(options.cache_size),
      buckets_(options.cache_size) {
  if (options.spam_refill <= std::chrono::seconds::zero())
    throw std::invalid_argument("event correlator: spam_refill must be > 0 (got " +
                                std::to_string(options.spam_refill.count()) + " s)");
}

std::optional<Event> EventCorrelator::correlate(Event event, WallClock::time_point now) {
  const std::string key = aggregate(event, now);
  observe(event, key);
  if (!allowed(event, now)) return std::nullopt;
  return event;
}

// Notes the message among the similar Events; from the max-th distinct one on, turns `event` into
// the combined Event. Returns the key its repeats are counted under.
std::string EventCorrelator::aggregate(Event& event, WallClock::time_point now) {
  std::string key = similar_key(event);
  SimilarEvents* similar = similar_.get(key);
  if (similar == nullptr || now - similar->last > options_.aggregate_interval) {
    similar = &similar_.put(key, SimilarEvents{{}, now});
  }
  similar->messages.insert(event.message);
  similar->last = now;
  if (similar->messages.size() < options_.aggregate_max_events) return repeat_key(event);
  similar->messages.erase(similar->messages.begin());  // never hold more than max
  event.metadata.name = event_name(event.involved_object.name, now);
  event.message = std::string(kCombinedEventPrefix) + event.message;
  event.first_timestamp = event.last_timestamp = format_time(now);
  event.count = 1;
  return key;
}

// A repeat takes over the name, firstTimestamp and count of the Event it repeats.
void EventCorrelator::observe(Event& event, const std::string& key) {
  if (const Observation* seen = observed_.get(key)) {
    event.metadata.name = seen->name;
    event.first_timestamp = seen->first_timestamp;
    event.count = seen->count + 1;
  }
  observed_.put(key, Observation{event.count, event.first_timestamp, event.metadata.name});
}

// getSpamKey: the source, the object and the type (not the reason).
bool EventCorrelator::allowed(const Event& event, WallClock::time_point now) {
  const std::string key = fmt::format("{}\x1f{}", object_key(event), event.type);
  auto* bucket = buckets_.get(key);
  if (bucket == nullptr) {
    const double refills_per_second =
        1 / std::chrono::duration<double>(options_.spam_refill).count();
    bucket = &buckets_.put(
        key, rate::Bucket<WallClock>(refills_per_second, std::max(1, options_.spam_burst), now));
  }
  return bucket->allow(now);
}

}  // namespace rg::client
