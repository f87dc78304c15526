// Parsers of discovery documents (see api_resources.hpp). Field names and shapes: k8s.io/api
// apidiscovery/v2 types.go (APIGroupDiscoveryList, APIVersionDiscovery.Freshness "Current" or
// "Stale", APIResourceDiscovery.Scope "Namespaced" or "Cluster", ResponseKind) and apimachinery
// meta/v1 types.go (APIVersions, APIGroupList with PreferredVersion, APIResourceList whose
// subresources are named "resource/subresource").
#include "client/discovery/api_resources.hpp"

#include <boost/json/object.hpp>

namespace rg::client::discovery {
namespace {

namespace json = boost::json;

[[noreturn]] void bad(std::string_view what, std::string_view why) {
  throw DiscoveryError("malformed " + std::string(what) + ": " + std::string(why));
}

const json::object& as_object(const json::value& value, std::string_view what) {
  if (!value.is_object()) bad(what, "expected a JSON object");
  return value.get_object();
}

// The array at `key`; empty when absent, an error when of another type.
const json::array& array_at(const json::object& object, std::string_view key,
                            std::string_view what) {
  static const json::array kEmpty;
  const auto* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return kEmpty;
  if (!value->is_array()) bad(what, "\"" + std::string(key) + "\" is not an array");
  return value->get_array();
}

// The string at `key`; empty when absent, an error when of another type.
std::string string_at(const json::object& object, std::string_view key, std::string_view what) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_string()) bad(what, "\"" + std::string(key) + "\" is not a string");
  return std::string(value->get_string());
}

std::vector<std::string> strings_at(const json::object& object, std::string_view key,
                                    std::string_view what) {
  std::vector<std::string> out;
  for (const auto& item : array_at(object, key, what)) {
    if (!item.is_string()) bad(what, "\"" + std::string(key) + "\" holds a non-string");
    out.emplace_back(item.get_string());
  }
  return out;
}

APIResource aggregated_resource(const json::object& entry, const std::string& group,
                                const std::string& version) {
  constexpr std::string_view what = "APIResourceDiscovery";
  APIResource resource;
  resource.group = group;
  resource.version = version;
  resource.resource = string_at(entry, "resource", what);
  if (resource.resource.empty()) bad(what, "a resource has no name");
  resource.singular = string_at(entry, "singularResource", what);
  if (const auto* kind = entry.if_contains("responseKind"); kind != nullptr && kind->is_object()) {
    resource.kind = string_at(kind->get_object(), "kind", what);
  }
  const std::string scope = string_at(entry, "scope", what);
  if (scope != "Namespaced" && scope != "Cluster") {
    bad(what, "resource \"" + resource.resource + "\" has scope \"" + scope +
                  "\" (expected Namespaced or Cluster)");
  }
  resource.namespaced = scope == "Namespaced";
  resource.verbs = strings_at(entry, "verbs", what);
  resource.short_names = strings_at(entry, "shortNames", what);
  return resource;
}

}  // namespace

std::string group_version(std::string_view group, std::string_view version) {
  if (group.empty()) return std::string(version);
  return std::string(group) + "/" + std::string(version);
}

void parse_aggregated(const json::value& document, DiscoveryResult& into) {
  constexpr std::string_view what = "APIGroupDiscoveryList";
  const auto& list = as_object(document, what);
  if (string_at(list, "kind", what) != "APIGroupDiscoveryList") {
    bad(what, "kind is not APIGroupDiscoveryList");
  }
  for (const auto& item : array_at(list, "items", what)) {
    const auto& entry = as_object(item, what);
    APIGroupResources group;
    if (const auto* metadata = entry.if_contains("metadata"); metadata && metadata->is_object()) {
      group.group = string_at(metadata->get_object(), "name", what);
    }
    for (const auto& version_value : array_at(entry, "versions", what)) {
      const auto& version_entry = as_object(version_value, what);
      const std::string version = string_at(version_entry, "version", what);
      if (string_at(version_entry, "freshness", what) == "Stale") {
        into.failed[group_version(group.group, version)] =
            "its discovery is stale (the API server serving it did not answer)";
        continue;
      }
      group.versions.push_back(version);
      for (const auto& resource : array_at(version_entry, "resources", what)) {
        group.resources.push_back(
            aggregated_resource(as_object(resource, what), group.group, version));
      }
    }
    if (!group.versions.empty()) into.groups.push_back(std::move(group));
  }
}

std::vector<std::string> parse_api_versions(const json::value& document) {
  return strings_at(as_object(document, "APIVersions"), "versions", "APIVersions");
}

std::vector<APIGroupResources> parse_group_list(const json::value& document) {
  constexpr std::string_view what = "APIGroupList";
  std::vector<APIGroupResources> groups;
  for (const auto& item : array_at(as_object(document, what), "groups", what)) {
    const auto& entry = as_object(item, what);
    APIGroupResources group;
    group.group = string_at(entry, "name", what);
    std::string preferred;
    if (const auto* p = entry.if_contains("preferredVersion"); p != nullptr && p->is_object()) {
      preferred = string_at(p->get_object(), "version", what);
    }
    if (!preferred.empty()) group.versions.push_back(preferred);
    for (const auto& version : array_at(entry, "versions", what)) {
      const std::string name = string_at(as_object(version, what), "version", what);
      if (name != preferred) group.versions.push_back(name);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<APIResource> parse_resource_list(const json::value& document, std::string_view group,
                                             std::string_view version) {
  constexpr std::string_view what = "APIResourceList";
  std::vector<APIResource> resources;
  for (const auto& item : array_at(as_object(document, what), "resources", what)) {
    const auto& entry = as_object(item, what);
    APIResource resource;
    resource.resource = string_at(entry, "name", what);
    if (resource.resource.empty()) bad(what, "a resource has no name");
    if (resource.resource.find('/') != std::string::npos) continue;  // a subresource
    resource.group = group;
    resource.version = version;
    resource.singular = string_at(entry, "singularName", what);
    resource.kind = string_at(entry, "kind", what);
    const auto* namespaced = entry.if_contains("namespaced");
    resource.namespaced = namespaced != nullptr && namespaced->is_bool() && namespaced->get_bool();
    resource.verbs = strings_at(entry, "verbs", what);
    resource.short_names = strings_at(entry, "shortNames", what);
    resources.push_back(std::move(resource));
  }
  return resources;
}

}  // namespace rg::client::discovery
