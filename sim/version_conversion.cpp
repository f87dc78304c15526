// Version conversion between the served versions of one stored resource (see
// version_conversion.hpp); the per-kind conversions live in their own files.
#include "sim/version_conversion.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/event_conversion.hpp"
#include "sim/hpa_conversion.hpp"
#include "sim/json_fields.hpp"
#include "sim/wire_form.hpp"

namespace rg::sim {
namespace {

class ConvertingEncoder final : public ObjectEncoder {
 public:
  ConvertingEncoder(const ResourceType& type, std::unique_ptr<ObjectEncoder> inner)
      : type_(type), inner_(std::move(inner)) {}

  std::string list_header(std::uint64_t resource_version, std::string_view continue_token,
                          std::optional<std::int64_t> remaining) override {
    return inner_->list_header(resource_version, continue_token, remaining);
  }

  void list_item(const ObjectPtr& object, ChunkBuilder& out) override {
    inner_->list_item(in_version(type_, object), out);
  }

  void watch_event(std::string_view type, const ObjectPtr& object, ChunkBuilder& out) override {
    inner_->watch_event(type, in_version(type_, object), out);
  }

 private:
  const ResourceType& type_;
  std::unique_ptr<ObjectEncoder> inner_;
};

}  // namespace

boost::json::object convert_to(const ResourceType& type, boost::json::object object) {
  const std::string from = string_at(object, "apiVersion");
  if (from == type.group_version()) return object;
  if (type.custom && from.starts_with(type.group + "/")) {
    // A CRD's `None` conversion (KAE pkg/apiserver/conversion/nop_converter.go): only
    // apiVersion changes.
    object["apiVersion"] = type.group_version();
    return object;
  }
  if (type.group == "autoscaling" && type.resource == "horizontalpodautoscalers") {
    if (type.version == "v1" && from == "autoscaling/v2") return hpa_v2_to_v1(object);
    if (type.version == "v2" && from == "autoscaling/v1") return hpa_v1_to_v2(object);
  }
  if (type.resource == "events") {
    if (type.group == "events.k8s.io" && from == "v1") return event_core_to_events_v1(object);
    if (type.group.empty() && from == "events.k8s.io/v1") return event_events_v1_to_core(object);
  }
  throw errors::internal(fmt::format("no conversion of {} from {} to {}", type.group_resource(),
                                     from, type.group_version()));
}

ObjectPtr in_version(const ResourceType& type, const ObjectPtr& object) {
  if (object->type == &type) return object;
  auto converted = convert_to(type, object->parse());
  if (type.wire != nullptr) to_wire_form(*type.wire, converted);
  return make_stored_object(type, converted);
}

std::unique_ptr<ObjectEncoder> converting_encoder(const ResourceType& type,
                                                  std::unique_ptr<ObjectEncoder> inner) {
  return std::make_unique<ConvertingEncoder>(type, std::move(inner));
}

}  // namespace rg::sim
