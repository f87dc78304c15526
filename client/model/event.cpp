// Schema of the Event projection (core/v1).
#include "client/model/event.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<ObjectReference>) {
  static constexpr FieldDesc fields[] = {
      field<&ObjectReference::kind>("kind"),
      field<&ObjectReference::namespace_>("namespace"),
      field<&ObjectReference::name>("name"),
      field<&ObjectReference::uid>("uid"),
      field<&ObjectReference::api_version>("apiVersion"),
      field<&ObjectReference::resource_version>("resourceVersion"),
      field<&ObjectReference::field_path>("fieldPath"),
  };
  static constexpr StructDesc desc{"ObjectReference", fields};
  return desc;
}

const StructDesc& schema_of(Tag<EventSource>) {
  static constexpr FieldDesc fields[] = {
      field<&EventSource::component>("component"),
      field<&EventSource::host>("host"),
  };
  static constexpr StructDesc desc{"EventSource", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Event>) {
  static constexpr FieldDesc fields[] = {
      field<&Event::metadata>("metadata", true),
      field<&Event::involved_object>("involvedObject"),
      field<&Event::reason>("reason"),
      field<&Event::message>("message"),
      field<&Event::source>("source"),
      field<&Event::first_timestamp>("firstTimestamp"),
      field<&Event::last_timestamp>("lastTimestamp"),
      field<&Event::count>("count"),
      field<&Event::type>("type"),
      field<&Event::event_time>("eventTime"),
      field<&Event::action>("action"),
      field<&Event::reporting_component>("reportingComponent"),
      field<&Event::reporting_instance>("reportingInstance"),
  };
  static constexpr StructDesc desc{"Event", fields, "v1", "Event"};
  return desc;
}

}  // namespace rg::client::detail
