// Event conversion between core/v1 and events.k8s.io/v1 (see event_conversion.hpp).
#include "sim/event_conversion.hpp"

#include <boost/json/value.hpp>

#include <string_view>
#include <utility>

namespace rg::sim {
namespace json = boost::json;
namespace {

// core/v1 field -> events.k8s.io/v1 field; the fields not listed keep their name.
constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"reportingComponent", "reportingController"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
};

json::object convert(const json::object& in, std::string_view api_version, bool to_events_v1) {
  json::object out;
  out["kind"] = "Event";
  out["apiVersion"] = api_version;
  for (const auto& [key, value] : in) {
    if (key == "kind" || key == "apiVersion") continue;
    std::string_view name = key;
    for (const auto& [core, events] : kRenamed)
      if (name == (to_events_v1 ? core : events)) {
        name = to_events_v1 ? events : core;
        break;
      }
    out[name] = value;
  }
  return out;
}

}  // namespace

json::object event_core_to_events_v1(const json::object& core) {
  return convert(core, "events.k8s.io/v1", true);
}

json::object event_events_v1_to_core(const json::object& event) {
  return convert(event, "v1", false);
}

}  // namespace rg::sim
