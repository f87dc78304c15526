// EventsV1Recorder (see events_v1_recorder.hpp): client-go v0.35.0 tools/events
// event_recorder.go (eventf, makeEvent) and event_broadcaster.go (recordToSink, recordEvent,
// finishSeries, getKey).
#include "sim/cluster/events_v1_recorder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json/value.hpp>

#include "client/model/codec.hpp"
#include "client/model/time.hpp"
#include "client/record/event_correlator.hpp"
#include "sim/api_error.hpp"
#include "sim/event_conversion.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

// getKey: what makes two Events isomorphic (the whole regarding reference).
std::string isomorphic_key(const client::ObjectReference& r, std::string_view type,
                           std::string_view action, std::string_view reason,
                           std::string_view controller, std::string_view instance) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", type,
                     action, reason, controller, instance, r.kind, r.namespace_, r.name, r.uid,
                     r.api_version, r.resource_version, r.field_path);
}

}  // namespace

EventsV1Recorder::EventsV1Recorder(Context& context, std::string reporting_controller,
                                   std::string reporting_instance, Identity identity)
    : context_(context),
      reporting_controller_(std::move(reporting_controller)),
      reporting_instance_(std::move(reporting_instance)),
      identity_(std::move(identity)) {}

void EventsV1Recorder::event(const client::ObjectReference& regarding, std::string_view type,
                             std::string_view reason, std::string_view action, std::string note) {
  if (!context_.options.record_events) return;
  if (!context_.api_reachable(identity_.user, identity_.user_agent)) return;
  const auto now = Clock::now();
  const std::string key =
      isomorphic_key(regarding, type, action, reason, reporting_controller_, reporting_instance_);
  if (auto found = cache_.find(key); found != cache_.end()) {
    auto& recorded = found->second;
    recorded.last_observed = now;
    if (recorded.series_count > 0) {
      ++recorded.series_count;  // counted; written when the series finishes
      return;
    }
    recorded.series_count = 2;
    write(recorded);
    return;
  }
  json::object event{
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", json::object{{"name", client::event_name(regarding.name, now)},
                                {"namespace",
                                 regarding.namespace_.empty() ? "default" : regarding.namespace_}}},
      {"eventTime", client::format_micro_time(now)},
      {"reportingController", reporting_controller_},
      {"reportingInstance", reporting_instance_},
      {"action", action},
      {"reason", reason},
      {"regarding", client::to_json(regarding)},
      {"note", std::move(note)},
      {"type", type}};
  auto& recorded = cache_[key];
  recorded = Recorded{std::move(event), now, 0, now};
  write(recorded);
}

void EventsV1Recorder::finish_series(Clock::time_point now) {
  const auto finish = context_.options.event_series_finish;
  for (auto it = cache_.begin(); it != cache_.end();) {
    const auto& recorded = it->second;
    bool forget = false;
    if (recorded.series_count > 0)
      forget = recorded.last_observed + finish < now &&
               context_.api_reachable(identity_.user, identity_.user_agent) && write(recorded);
    else
      forget = recorded.event_time + finish < now;
    it = forget ? cache_.erase(it) : std::next(it);
  }
}

bool EventsV1Recorder::write(const Recorded& recorded) {
  const auto& type = context_.types.events;  // core/v1, the storage of both groups
  const auto& metadata = recorded.event.at("metadata").as_object();
  const std::string namespace_(metadata.at("namespace").as_string());
  const std::string name(metadata.at("name").as_string());
  json::object series;
  if (recorded.series_count > 0)
    series = json::object{{"count", recorded.series_count},
                          {"lastObservedTime", client::format_micro_time(recorded.last_observed)}};
  try {
    if (!series.empty()) {
      try {
        context_.store.update(type, namespace_, name,
                              [&](const StoredObject&, json::object stored) {
                                stored["series"] = series;
                                return stored;
                              });
        return true;
      } catch (const ApiError& error) {
        if (error.code() != 404) throw;
      }
    }
    json::object event = recorded.event;
    if (!series.empty()) event["series"] = std::move(series);
    context_.store.create(type, event_events_v1_to_core(event));
    return true;
  } catch (const std::exception& error) {
    spdlog::debug("{}: event {} not recorded: {}", reporting_controller_, name, error.what());
    return false;
  }
}

}  // namespace rg::sim::cluster
