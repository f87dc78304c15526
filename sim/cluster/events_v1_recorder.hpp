// EventsV1Recorder: events.k8s.io/v1 Events from a simulated component, as client-go's new
// events library (tools/events, v0.35.0) writes them -- what kube-scheduler uses:
//  - makeEvent: name "<regarding's name>.<UnixNano in hex>", the regarding object's namespace
//    ("default" when cluster-scoped), eventTime now (MicroTime), reportingController,
//    reportingInstance ("<controller>-<hostname>"), action, reason, regarding, note, type; no
//    deprecated* fields;
//  - recordToSink: Events isomorphic to one seen before (same type, action, reason, reporting
//    controller and instance, regarding object -- its resourceVersion included -- and related)
//    form a series: the second one writes series {count: 2, lastObservedTime} onto the first
//    (a PATCH), later ones only count in the recorder's cache;
//  - finishSeries (every 6 min): a series not observed for 6 min gets its final count written
//    and is forgotten, as is a single Event older than that.
// Not simulated: refreshExistingEventSeries (a series still going after 30 min is rewritten).
// The Events are stored as the API server stores them, as core/v1 Events (firstTimestamp and
// lastTimestamp null, count 0, source empty: sim/event_conversion), so `kubectl describe` and
// `kubectl events` (core/v1) show them. Dropped while the component cannot reach the API
// server, and not recorded with ClusterOptions::record_events off.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "client/model/event.hpp"
#include "sim/cluster/caches.hpp"
#include "sim/cluster/event_recorder.hpp"

namespace rg::sim::cluster {

class EventsV1Recorder {
 public:
  using Clock = std::chrono::system_clock;

  EventsV1Recorder(Context& context, std::string reporting_controller,
                   std::string reporting_instance, Identity identity);

  /// Eventf(regarding, related = nil, type, reason, action, note).
  void event(const client::ObjectReference& regarding, std::string_view type,
             std::string_view reason, std::string_view action, std::string note);

  /// finishSeries, as of `now`.
  void finish_series(Clock::time_point now);

 private:
  struct Recorded {
    boost::json::object event;  ///< as first made (events.k8s.io/v1)
    Clock::time_point event_time;
    std::int64_t series_count = 0;  ///< 0: no series yet
    Clock::time_point last_observed;
  };

  /// recordEvent: PATCH the series onto the stored Event (create it when gone), or create it.
  bool write(const Recorded& recorded);

  Context& context_;
  std::string reporting_controller_;
  std::string reporting_instance_;
  Identity identity_;
  std::map<std::string, Recorded> cache_;  ///< eventCache, by isomorphic key
};

}  // namespace rg::sim::cluster
