// The Scale view of an object and its way back (see scale_view.hpp).
#include "sim/scale_view.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <cstdint>
#include <exception>
#include <string>

#include "client/labels/label_selector.hpp"
#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

std::string selector_string(const json::object& object) {
  const auto* spec = find_object(object, "spec");
  if (spec == nullptr) return {};
  const auto* selector = spec->if_contains("selector");
  if (selector == nullptr) return {};
  try {
    return client::LabelSelector::from_json(*selector).to_string();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

json::object scale_of(const json::object& object, json::storage_ptr storage) {
  const auto& metadata = object.at("metadata").as_object();
  json::object scale_meta(storage);
  scale_meta.reserve(5);
  for (auto field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (const auto* value = metadata.if_contains(field)) scale_meta.emplace(field, *value);
  json::object spec(storage);
  if (const auto* s = find_object(object, "spec"); s != nullptr)
    if (const auto* replicas = s->if_contains("replicas");
        replicas != nullptr && replicas->is_number() && replicas->to_number<std::int64_t>() != 0)
      spec.emplace("replicas", *replicas);
  std::int64_t replicas = 0;
  if (const auto* s = find_object(object, "status"); s != nullptr)
    if (const auto* r = s->if_contains("replicas"); r != nullptr && r->is_number())
      replicas = r->to_number<std::int64_t>();
  json::object status(storage);
  status.reserve(2);
  status.emplace("replicas", replicas);
  if (auto selector = selector_string(object); !selector.empty())
    status.emplace("selector", selector);
  // Members emplaced, not an initializer list: that would copy the objects built above.
  json::object scale(std::move(storage));
  scale.reserve(5);
  scale.emplace("kind", "Scale");
  scale.emplace("apiVersion", "autoscaling/v1");
  scale.emplace("metadata", std::move(scale_meta));
  scale.emplace("spec", std::move(spec));
  scale.emplace("status", std::move(status));
  return scale;
}

json::object scale_to_object(const ResourceType& type, std::string_view name,
                             const json::object& scale) {
  const std::string api_version = string_at(scale, "apiVersion");
  const std::string kind = string_at(scale, "kind");
  if (api_version != "autoscaling/v1" || kind != "Scale")
    throw errors::bad_request(fmt::format(
        "the apply configuration is a {} {}, but the scale subresource takes autoscaling/v1 Scale",
        api_version, kind));
  json::object metadata{{"name", name}};
  if (const auto* meta = find_object(scale, "metadata"))
    if (const auto* rv = meta->if_contains("resourceVersion")) metadata["resourceVersion"] = *rv;
  json::object object{
      {"apiVersion", type.group_version()}, {"kind", type.kind}, {"metadata", std::move(metadata)}};
  if (const auto* spec = find_object(scale, "spec"))
    if (const auto* replicas = spec->if_contains("replicas"))
      object["spec"] = json::object{{"replicas", *replicas}};
  return object;
}

}  // namespace rg::sim
