// The Scale view of an object and its way back (see scale_view.hpp).
#include "sim/scale_view.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

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

// A CRD's ".spec.replicas" as the keys on the way (splitReplicasPath in KAE
// pkg/registry/customresource/etcd.go).
std::vector<std::string_view> path_keys(std::string_view path) {
  std::vector<std::string_view> keys;
  if (path.starts_with('.')) path.remove_prefix(1);
  while (!path.empty()) {
    const auto dot = path.find('.');
    keys.push_back(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  return keys;
}

const json::value* value_at(const json::object& object, std::string_view path) {
  const json::object* parent = &object;
  const json::value* value = nullptr;
  for (auto key : path_keys(path)) {
    if (parent == nullptr) return nullptr;
    value = parent->if_contains(key);
    if (value == nullptr) return nullptr;
    parent = value->if_object();
  }
  return value;
}

std::int64_t replicas_at(const json::object& object, std::string_view path) {
  const auto* value = value_at(object, path);
  return value != nullptr && value->is_number() ? value->to_number<std::int64_t>() : 0;
}

// The custom resource's Scale (scaleFromCustomResource, KAE pkg/registry/customresource/etcd.go):
// replicas from the CRD's paths (absent: 0), the selector the string at labelSelectorPath.
void fill_custom_scale(const ScalePaths& paths, const json::object& object, json::object& spec,
                       json::object& status) {
  if (const auto replicas = replicas_at(object, paths.spec_replicas); replicas != 0)
    spec.emplace("replicas", replicas);
  status.emplace("replicas", replicas_at(object, paths.status_replicas));
  if (paths.label_selector.empty()) return;
  if (const auto* selector = value_at(object, paths.label_selector);
      selector != nullptr && selector->is_string() && !selector->get_string().empty())
    status.emplace("selector", selector->get_string());
}

json::object scale_document(json::object metadata, json::object spec, json::object status,
                            json::storage_ptr storage) {
  // Members emplaced, not an initializer list: that would copy the objects built above.
  json::object scale(std::move(storage));
  scale.reserve(5);
  scale.emplace("kind", "Scale");
  scale.emplace("apiVersion", "autoscaling/v1");
  scale.emplace("metadata", std::move(metadata));
  scale.emplace("spec", std::move(spec));
  scale.emplace("status", std::move(status));
  return scale;
}

}  // namespace

void set_scale_replicas(const ResourceType& type, json::object& object, json::value replicas) {
  if (!type.scale_paths) {
    object_at(object, "spec")["replicas"] = std::move(replicas);
    return;
  }
  const auto keys = path_keys(type.scale_paths->spec_replicas);
  json::object* parent = &object;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) parent = &object_at(*parent, keys[i]);
  if (!keys.empty()) (*parent)[keys.back()] = std::move(replicas);
}

json::object scale_of(const ResourceType& type, const json::object& object,
                      json::storage_ptr storage) {
  const auto& metadata = object.at("metadata").as_object();
  json::object scale_meta(storage);
  scale_meta.reserve(5);
  for (auto field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (const auto* value = metadata.if_contains(field)) scale_meta.emplace(field, *value);
  json::object spec(storage);
  json::object status(storage);
  status.reserve(2);
  if (type.scale_paths) {
    fill_custom_scale(*type.scale_paths, object, spec, status);
    return scale_document(std::move(scale_meta), std::move(spec), std::move(status),
                          std::move(storage));
  }
  if (const auto* s = find_object(object, "spec"); s != nullptr)
    if (const auto* replicas = s->if_contains("replicas");
        replicas != nullptr && replicas->is_number() && replicas->to_number<std::int64_t>() != 0)
      spec.emplace("replicas", *replicas);
  std::int64_t replicas = 0;
  if (const auto* s = find_object(object, "status"); s != nullptr)
    if (const auto* r = s->if_contains("replicas"); r != nullptr && r->is_number())
      replicas = r->to_number<std::int64_t>();
  status.emplace("replicas", replicas);
  if (auto selector = selector_string(object); !selector.empty())
    status.emplace("selector", selector);
  return scale_document(std::move(scale_meta), std::move(spec), std::move(status),
                        std::move(storage));
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
      set_scale_replicas(type, object, *replicas);
  return object;
}

}  // namespace rg::sim
