// EventRecorder (see event_recorder.hpp).
#include "sim/cluster/event_recorder.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/value.hpp>

#include <chrono>

#include "client/model/codec.hpp"
#include "client/model/time.hpp"
#include "sim/api_error.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

client::ObjectReference reference_to(std::string_view api_version, std::string_view kind,
                                     const StoredObject& object, std::string field_path) {
  client::ObjectReference ref;
  ref.api_version = api_version;
  ref.kind = kind;
  ref.namespace_ = object.namespace_;
  ref.name = object.name;
  ref.uid = object.uid;
  ref.resource_version = std::to_string(object.resource_version);
  ref.field_path = std::move(field_path);
  return ref;
}

Identity controller_identity(std::string_view service_account) {
  const std::string user = "system:serviceaccount:kube-system:" + std::string(service_account);
  return {user, "kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/sim/" + user};
}

EventRecorder::EventRecorder(Context& context, client::EventSource source, Identity identity)
    : context_(context), source_(std::move(source)), identity_(std::move(identity)) {}

void EventRecorder::event(const client::ObjectReference& object, std::string_view type,
                          std::string_view reason, std::string message) {
  if (!context_.options.record_events) return;
  if (!context_.api_reachable(identity_.user, identity_.user_agent)) return;
  const auto now = std::chrono::system_clock::now();
  client::Event event;
  event.metadata.name = client::event_name(object.name, now);
  event.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  event.involved_object = object;
  event.reason = reason;
  event.message = std::move(message);
  event.source = source_;
  event.first_timestamp = event.last_timestamp = client::format_time(now);
  event.count = 1;
  event.type = type;
  event.reporting_component = source_.component;
  event.reporting_instance = source_.host;
  if (auto correlated = correlator_.correlate(std::move(event), now)) write(*correlated);
}

// recordEvent: a repeat patches the stored Event (count, lastTimestamp, message: what the
// two-way strategic merge patch of eventObserve carries); a new one, or a repeat whose Event is
// gone, is created. A refused write is dropped, as client-go drops it.
void EventRecorder::write(const client::Event& event) {
  const auto& type = context_.types.events;
  try {
    if (event.count > 1) {
      try {
        context_.store.update(type, event.metadata.namespace_, event.metadata.name,
                              [&](const StoredObject&, json::object stored) {
                                stored["count"] = event.count;
                                stored["lastTimestamp"] = event.last_timestamp;
                                stored["message"] = event.message;
                                return stored;
                              });
        return;
      } catch (const ApiError& error) {
        if (error.code() != 404) throw;
      }
    }
    context_.store.create(type, client::to_json(event));
  } catch (const std::exception& error) {
    spdlog::debug("{}: event {} on {}/{} not recorded: {}", source_.component, event.reason,
                  event.involved_object.kind, event.involved_object.name, error.what());
  }
}

}  // namespace rg::sim::cluster
