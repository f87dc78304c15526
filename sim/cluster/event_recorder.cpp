// EventRecorder (see event_recorder.hpp).
#include "sim/cluster/event_recorder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json/value.hpp>

#include <chrono>

#include "client/model/time.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

InvolvedObject InvolvedObject::of(std::string_view api_version, std::string_view kind,
                                  const StoredObject& object) {
  return {std::string(api_version),
          std::string(kind),
          object.namespace_,
          object.name,
          object.uid,
          std::to_string(object.resource_version)};
}

EventRecorder::EventRecorder(Context& context, std::string component, std::string host,
                             std::string user, std::string user_agent)
    : context_(context),
      component_(std::move(component)),
      host_(std::move(host)),
      user_(std::move(user)),
      user_agent_(std::move(user_agent)) {}

void EventRecorder::event(const InvolvedObject& object, std::string_view type,
                          std::string_view reason, std::string_view message) {
  if (!context_.api_reachable(user_, user_agent_)) return;
  const auto now = std::chrono::system_clock::now();
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  const std::string timestamp = client::format_time(now);
  const std::string namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  json::object involved{{"kind", object.kind},
                        {"name", object.name},
                        {"uid", object.uid},
                        {"apiVersion", object.api_version}};
  if (!object.namespace_.empty()) involved["namespace"] = object.namespace_;
  if (!object.resource_version.empty()) involved["resourceVersion"] = object.resource_version;
  json::object source{{"component", component_}};
  if (!host_.empty()) source["host"] = host_;
  json::object event{{"apiVersion", "v1"},
                     {"kind", "Event"},
                     {"metadata", json::object{{"name", fmt::format("{}.{:x}", object.name, nanos)},
                                               {"namespace", namespace_}}},
                     {"involvedObject", std::move(involved)},
                     {"reason", reason},
                     {"message", message},
                     {"source", std::move(source)},
                     {"firstTimestamp", timestamp},
                     {"lastTimestamp", timestamp},
                     {"count", 1},
                     {"type", type},
                     {"eventTime", nullptr},
                     {"reportingComponent", component_},
                     {"reportingInstance", host_}};
  try {
    context_.store.create(context_.types.events, std::move(event));
  } catch (const std::exception& error) {
    // client-go's broadcaster drops an Event it cannot write after its retries; so do we.
    spdlog::warn("{}: event {} on {}/{} not recorded: {}", component_, reason, object.kind,
                 object.name, error.what());
  }
}

}  // namespace rg::sim::cluster
