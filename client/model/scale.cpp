// Schema of the Scale projection and the scale patch body.
#include "client/model/scale.hpp"

#include "client/model/schema.hpp"

namespace rg::client {

boost::json::object scale_patch(std::int32_t replicas, std::string_view resource_version) {
  boost::json::object patch;
  if (!resource_version.empty()) {
    patch["metadata"] = boost::json::object{{"resourceVersion", resource_version}};
  }
  patch["spec"] = boost::json::object{{"replicas", replicas}};
  return patch;
}

namespace detail {

const StructDesc& schema_of(Tag<ScaleSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&ScaleSpec::replicas>("replicas"),
  };
  static constexpr StructDesc desc{"ScaleSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ScaleStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&ScaleStatus::replicas>("replicas"),
      field<&ScaleStatus::selector>("selector"),
  };
  static constexpr StructDesc desc{"ScaleStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Scale>) {
  static constexpr FieldDesc fields[] = {
      field<&Scale::metadata>("metadata", true),
      field<&Scale::spec>("spec"),
      field<&Scale::status>("status"),
  };
  static constexpr StructDesc desc{"Scale", fields, "autoscaling/v1", "Scale"};
  return desc;
}

}  // namespace detail
}  // namespace rg::client
