// Event (core/v1): what the operator records about its decisions ("ScaledUp" on a Deployment),
// and reads back. Timestamps stay in their wire form; eventTime is a MicroTime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/model/object_meta.hpp"

namespace rg::client {

/// core/v1 ObjectReference: the object an event is about.
struct ObjectReference {
  std::string kind{};
  std::string namespace_{};
  std::string name{};
  std::string uid{};
  std::string api_version{};
  std::string resource_version{};
  std::string field_path{};
};

struct EventSource {
  std::string component;
  std::string host;
};

/// Encode with to_json (client/model/codec.hpp) for creation.
struct Event {
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;  ///< UpperCamelCase, e.g. "ScaledUp"
  std::string message;
  EventSource source;
  std::string first_timestamp;
  std::string last_timestamp;
  std::int32_t count = 0;
  std::string type;  ///< "Normal" or "Warning"
  std::optional<std::string> event_time;
  std::string action;
  std::string reporting_component;
  std::string reporting_instance;
};

namespace detail {
const StructDesc& schema_of(Tag<ObjectReference>);
const StructDesc& schema_of(Tag<Event>);
}  // namespace detail

}  // namespace rg::client
