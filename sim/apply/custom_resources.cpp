// CustomResourceDefinition types and status (see custom_resources.hpp).
#include "sim/apply/custom_resources.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>

#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"
#include "sim/object_store.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kSubVerbs = {"get", "patch", "update"};

const json::object* object_at(const json::object& parent, std::string_view key) {
  const auto* value = parent.if_contains(key);
  return value != nullptr ? value->if_object() : nullptr;
}

std::vector<std::string> strings_at(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* list = object.if_contains(key); list != nullptr && list->is_array())
    for (const auto& item : list->get_array())
      if (item.is_string()) out.emplace_back(item.get_string());
  return out;
}

ApiError invalid_definition(const json::object& crd, std::string field, std::string detail) {
  const auto* metadata = object_at(crd, "metadata");
  return errors::invalid("apiextensions.k8s.io", "CustomResourceDefinition",
                         metadata != nullptr ? string_at(*metadata, "name") : "",
                         {{"FieldValueRequired", std::move(field), std::move(detail)}});
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::vector<ResourceType> types_of_definition(const json::object& crd) {
  const auto* spec = object_at(crd, "spec");
  if (spec == nullptr) throw invalid_definition(crd, "spec", "Required value");
  const std::string group = string_at(*spec, "group");
  if (group.empty()) throw invalid_definition(crd, "spec.group", "Required value");
  const auto* names = object_at(*spec, "names");
  if (names == nullptr || string_at(*names, "plural").empty() || string_at(*names, "kind").empty())
    throw invalid_definition(crd, "spec.names", "Required value: plural and kind are required");
  const std::string scope = string_at(*spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster")
    throw invalid_definition(crd, "spec.scope",
                             "Required value: must be \"Namespaced\" or \"Cluster\"");
  const auto* versions = spec->if_contains("versions");
  if (versions == nullptr || !versions->is_array() || versions->get_array().empty())
    throw invalid_definition(crd, "spec.versions",
                             "Required value: must have at least one version");

  std::vector<ResourceType> types;
  for (const auto& entry : versions->get_array()) {
    const auto* version = entry.if_object();
    if (version == nullptr || string_at(*version, "name").empty())
      throw invalid_definition(crd, "spec.versions[].name", "Required value");
    if (const auto* served = version->if_contains("served");
        served != nullptr && served->is_bool() && !served->get_bool())
      continue;
    ResourceType type;
    type.group = group;
    type.version = string_at(*version, "name");
    type.resource = string_at(*names, "plural");
    type.kind = string_at(*names, "kind");
    type.singular = string_at(*names, "singular");
    if (type.singular.empty()) type.singular = lower(type.kind);
    type.namespaced = scope == "Namespaced";
    type.short_names = strings_at(*names, "shortNames");
    type.categories = strings_at(*names, "categories");
    type.verbs = kAllVerbs;
    if (const auto* subresources = object_at(*version, "subresources")) {
      if (subresources->contains("scale"))
        type.subresources.push_back({"scale", "autoscaling", "v1", "Scale", kSubVerbs});
      if (subresources->contains("status"))
        type.subresources.push_back({"status", group, type.version, type.kind, kSubVerbs});
    }
    type.type_meta_prefix =
        R"({"kind":")" + type.kind + R"(","apiVersion":")" + type.group_version() + "\",";
    types.push_back(std::move(type));
  }
  return types;
}

json::object definition_status(const json::object& crd, const json::object* previous) {
  const auto* spec = object_at(crd, "spec");
  json::object names = spec != nullptr && object_at(*spec, "names") != nullptr
                           ? *object_at(*spec, "names")
                           : json::object();
  if (!names.contains("singular") && names.contains("kind"))
    names["singular"] = lower(std::string(names.at("kind").as_string()));
  if (!names.contains("listKind") && names.contains("kind"))
    names["listKind"] = std::string(names.at("kind").as_string()) + "List";
  json::array stored;
  if (spec != nullptr)
    if (const auto* versions = spec->if_contains("versions"); versions && versions->is_array())
      for (const auto& version : versions->get_array())
        if (const auto* v = version.if_object(); v != nullptr)
          if (const auto* storage = v->if_contains("storage");
              storage && storage->is_bool() && storage->get_bool())
            stored.push_back(json::string(string_at(*v, "name")));
  auto since = [&](std::string_view type) -> json::value {
    if (previous != nullptr)
      if (const auto* conditions = previous->if_contains("conditions");
          conditions != nullptr && conditions->is_array())
        for (const auto& condition : conditions->get_array())
          if (condition.is_object() && string_at(condition.get_object(), "type") == type)
            if (const auto* time = condition.get_object().if_contains("lastTransitionTime"))
              return *time;
    return json::string(client::format_time(std::chrono::system_clock::now()));
  };
  json::array conditions{json::object{{"type", "NamesAccepted"},
                                      {"status", "True"},
                                      {"lastTransitionTime", since("NamesAccepted")},
                                      {"reason", "NoConflicts"},
                                      {"message", "no conflicts found"}},
                         json::object{{"type", "Established"},
                                      {"status", "True"},
                                      {"lastTransitionTime", since("Established")},
                                      {"reason", "InitialNamesAccepted"},
                                      {"message", "the initial names have been accepted"}}};
  return json::object{{"conditions", std::move(conditions)},
                      {"acceptedNames", std::move(names)},
                      {"storedVersions", std::move(stored)}};
}

std::vector<const ResourceType*> CustomResources::define(const std::string& name,
                                                         std::vector<ResourceType> types) {
  std::unique_lock lock(mutex_);
  auto& served = served_[name];
  std::vector<std::unique_ptr<ResourceType>> next;
  for (auto& type : types) {
    auto same = std::find_if(served.begin(), served.end(), [&](const auto& existing) {
      return existing && existing->group == type.group && existing->version == type.version &&
             existing->resource == type.resource;
    });
    if (same != served.end())
      next.push_back(std::move(*same));
    else
      next.push_back(std::make_unique<ResourceType>(std::move(type)));
  }
  std::vector<const ResourceType*> dropped;
  for (auto& old : served) {
    if (!old) continue;
    dropped.push_back(old.get());
    retired_.push_back(std::move(old));
  }
  served = std::move(next);
  ++generation_;
  return dropped;
}

std::vector<const ResourceType*> CustomResources::undefine(const std::string& name) {
  std::unique_lock lock(mutex_);
  std::vector<const ResourceType*> dropped;
  auto it = served_.find(name);
  if (it == served_.end()) return dropped;
  for (auto& type : it->second) {
    dropped.push_back(type.get());
    retired_.push_back(std::move(type));
  }
  served_.erase(it);
  ++generation_;
  return dropped;
}

const ResourceType* CustomResources::find(std::string_view group, std::string_view version,
                                          std::string_view resource) const {
  std::shared_lock lock(mutex_);
  for (const auto& [name, types] : served_)
    for (const auto& type : types)
      if (type->group == group && type->version == version && type->resource == resource)
        return type.get();
  return nullptr;
}

std::vector<const ResourceType*> CustomResources::types() const {
  std::shared_lock lock(mutex_);
  std::vector<const ResourceType*> out;
  for (const auto& [name, types] : served_)
    for (const auto& type : types) out.push_back(type.get());
  return out;
}

std::uint64_t CustomResources::generation() const {
  std::shared_lock lock(mutex_);
  return generation_;
}

}  // namespace rg::sim::apply
