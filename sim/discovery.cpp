// Discovery and OpenAPI documents (see discovery.hpp). Shapes: apimachinery meta/v1 and
// apidiscovery/v2 types; OpenAPI v3: what kubectl's and helm's query-param verifier needs, plus
// the /openapi/v2 definitions of the group-version's kinds as component schemas (kubectl explain).
#include "sim/discovery.hpp"

#include <fmt/format.h>
#include <openssl/sha.h>
#include <boost/json.hpp>

#include <algorithm>
#include <ctime>

#include "sim/openapi_v2.hpp"
#include "sim/openapi_v2_definitions.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

constexpr std::string_view kAggregatedV2 =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

json::object group_version_ref(const std::string& group, const std::string& version) {
  return {{"groupVersion", group.empty() ? version : group + "/" + version}, {"version", version}};
}

json::array strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

json::object api_resource_list(const GroupVersion& gv) {
  json::array resources;
  for (const auto* type : gv.resources) {
    json::object resource{{"name", type->resource},
                          {"singularName", type->singular},
                          {"namespaced", type->namespaced},
                          {"kind", type->kind},
                          {"verbs", strings(type->verbs)}};
    if (!type->short_names.empty()) resource["shortNames"] = strings(type->short_names);
    if (!type->categories.empty()) resource["categories"] = strings(type->categories);
    resources.push_back(std::move(resource));
    for (const auto& sub : type->subresources) {
      json::object entry{{"name", type->resource + "/" + sub.name},
                         {"singularName", ""},
                         {"namespaced", type->namespaced}};
      if (sub.group != type->group || sub.version != type->version) {
        entry["group"] = sub.group;
        entry["version"] = sub.version;
      }
      entry["kind"] = sub.kind;
      entry["verbs"] = strings(sub.verbs);
      resources.push_back(std::move(entry));
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", gv.group_version()},
          {"resources", std::move(resources)}};
}

json::object aggregated_group(const std::string& group,
                              const std::vector<const GroupVersion*>& versions) {
  json::array version_list;
  for (const auto* gv : versions) {
    json::array resources;
    for (const auto* type : gv->resources) {
      json::object resource{
          {"resource", type->resource},
          {"responseKind",
           json::object{{"group", type->group}, {"version", type->version}, {"kind", type->kind}}},
          {"scope", type->namespaced ? "Namespaced" : "Cluster"},
          {"singularResource", type->singular},
          {"verbs", strings(type->verbs)}};
      if (!type->short_names.empty()) resource["shortNames"] = strings(type->short_names);
      if (!type->categories.empty()) resource["categories"] = strings(type->categories);
      if (!type->subresources.empty()) {
        json::array subs;
        for (const auto& sub : type->subresources)
          subs.push_back(json::object{
              {"subresource", sub.name},
              {"responseKind",
               json::object{{"group", sub.group}, {"version", sub.version}, {"kind", sub.kind}}},
              {"verbs", strings(sub.verbs)}});
        resource["subresources"] = std::move(subs);
      }
      resources.push_back(std::move(resource));
    }
    version_list.push_back(json::object{
        {"version", gv->version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  return {{"metadata", json::object{{"name", group}}}, {"versions", std::move(version_list)}};
}

/// A copy of `value` with every "#/definitions/X" reference as "#/components/schemas/X"; the
/// names referenced are added to `refs`.
json::value to_components(const json::value& value, std::vector<std::string>& refs) {
  if (const auto* object = value.if_object()) {
    json::object out;
    for (const auto& [key, field] : *object) {
      if (key == "$ref" && field.is_string() && field.as_string().starts_with("#/definitions/")) {
        std::string name(field.as_string().subview().substr(14));
        out[key] = "#/components/schemas/" + name;
        refs.push_back(std::move(name));
      } else {
        out[key] = to_components(field, refs);
      }
    }
    return out;
  }
  if (const auto* array = value.if_array()) {
    json::array out;
    for (const auto& item : *array) out.push_back(to_components(item, refs));
    return out;
  }
  return value;
}

/// The v2 definitions of `gv`'s kinds and of everything they reference, as v3 component schemas.
json::object component_schemas(const GroupVersion& gv, const json::object& definitions) {
  std::vector<std::string> pending;
  for (const auto* type : gv.resources) {
    pending.push_back(definition_name(type->group, type->version, type->kind));
    for (const auto& sub : type->subresources)
      pending.push_back(definition_name(sub.group, sub.version, sub.kind));
  }
  json::object schemas;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    const auto* definition = definitions.if_contains(name);
    if (definition == nullptr || schemas.contains(name)) continue;
    schemas[name] = to_components(*definition, pending);
  }
  return schemas;
}

json::object openapi_document(const GroupVersion& gv, const std::string& git_version,
                              const json::object& definitions) {
  json::object paths;
  const std::string prefix =
      gv.group.empty() ? "/api/" + gv.version : "/apis/" + gv.group_version();
  auto parameters = [] {
    json::array params;
    for (auto name : {"dryRun", "fieldManager", "fieldValidation", "force"})
      params.push_back(json::object{
          {"name", name},
          {"in", "query"},
          {"schema",
           json::object{{"type", name == std::string_view("force") ? "boolean" : "string"},
                        {"uniqueItems", true}}}});
    return params;
  };
  auto add = [&](const std::string& path, const std::string& group, const std::string& version,
                 const std::string& kind, const std::string& operation_id) {
    json::object patch{
        {"operationId", operation_id},
        {"parameters", parameters()},
        {"responses", json::object{{"200", json::object{{"description", "OK"}}},
                                   {"201", json::object{{"description", "Created"}}}}},
        {"x-kubernetes-action", "patch"},
        {"x-kubernetes-group-version-kind",
         json::object{{"group", group}, {"version", version}, {"kind", kind}}}};
    paths[path] = json::object{{"patch", std::move(patch)}};
  };
  for (const auto* type : gv.resources) {
    std::string base = type->namespaced ? prefix + "/namespaces/{namespace}/" + type->resource
                                        : prefix + "/" + type->resource;
    std::string id = fmt::format("patch{}{}", type->namespaced ? "Namespaced" : "", type->kind);
    add(base + "/{name}", type->group, type->version, type->kind, id);
    for (const auto& sub : type->subresources)
      if (std::find(sub.verbs.begin(), sub.verbs.end(), "patch") != sub.verbs.end())
        add(base + "/{name}/" + sub.name, sub.group, sub.version, sub.kind, id + sub.name);
  }
  return {{"openapi", "3.0.0"},
          {"info", json::object{{"title", "Kubernetes"}, {"version", git_version}}},
          {"paths", std::move(paths)},
          {"components", json::object{{"schemas", component_schemas(gv, definitions)}}}};
}

bool wants_aggregated(std::string_view accept) {
  return accept.find("as=APIGroupDiscoveryList") != std::string_view::npos &&
         (accept.find("v=v2;") != std::string_view::npos ||
          accept.find("v=v2beta1") != std::string_view::npos ||
          accept.find("v=v2,") != std::string_view::npos);
}

std::string http_date(std::time_t when) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buffer;
}

}  // namespace

std::string sha512_hex(std::string_view data) {
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  std::string hex;
  for (unsigned char byte : digest) hex += fmt::format("{:02X}", byte);
  return hex;
}

Discovery::Discovery(const ResourceTable& table, VersionInfo version, std::string server_address) {
  auto document = [](const json::value& value) {
    Document doc;
    doc.body = json::serialize(value);
    doc.etag = "\"" + sha512_hex(doc.body) + "\"";
    return doc;
  };
  version_ = document(json::object{{"major", version.major},
                                   {"minor", version.minor},
                                   {"gitVersion", version.git_version},
                                   {"gitCommit", "0000000000000000000000000000000000000000"},
                                   {"gitTreeState", "clean"},
                                   {"buildDate", "2026-11-29T00:00:00Z"},
                                   {"goVersion", "go1.25.0"},
                                   {"compiler", "gc"},
                                   {"platform", "linux/amd64"}});
  api_versions_ = document(json::object{
      {"kind", "APIVersions"},
      {"versions", json::array{"v1"}},
      {"serverAddressByClientCIDRs",
       json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}});

  json::array groups;
  json::array aggregated_groups;
  std::vector<std::string> group_order;
  for (const auto& gv : table.group_versions())
    if (std::find(group_order.begin(), group_order.end(), gv.group) == group_order.end())
      group_order.push_back(gv.group);
  json::object openapi_paths;
  json::object openapi_v2 = openapi_v2_document(table, version.git_version);
  const auto& definitions = openapi_v2.at("definitions").as_object();
  for (const auto& group : group_order) {
    std::vector<const GroupVersion*> versions;
    json::array version_refs;
    for (const auto& gv : table.group_versions()) {
      if (gv.group != group) continue;
      versions.push_back(&gv);
      version_refs.push_back(group_version_ref(gv.group, gv.version));
      resource_lists_[gv.group_version()] = document(api_resource_list(gv));
      auto key = group.empty() ? "api/" + gv.version : "apis/" + gv.group_version();
      auto doc = document(openapi_document(gv, version.git_version, definitions));
      openapi_paths[key] =
          json::object{{"serverRelativeURL", fmt::format("/openapi/v3/{}?hash={}", key,
                                                         doc.etag.substr(1, doc.etag.size() - 2))}};
      openapi_docs_[key] = std::move(doc);
    }
    json::object aggregated = aggregated_group(group, versions);
    if (group.empty()) {
      aggregated_core_ = document(json::object{{"kind", "APIGroupDiscoveryList"},
                                               {"apiVersion", "apidiscovery.k8s.io/v2"},
                                               {"metadata", json::object()},
                                               {"items", json::array{aggregated}}});
      continue;
    }
    aggregated_groups.push_back(std::move(aggregated));
    json::object api_group{{"kind", "APIGroup"},
                           {"apiVersion", "v1"},
                           {"name", group},
                           {"versions", version_refs},
                           {"preferredVersion", version_refs.front()}};
    groups_[group] = document(api_group);
    api_group.erase("kind");
    api_group.erase("apiVersion");
    groups.push_back(std::move(api_group));
  }
  group_list_ = document(
      json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
  aggregated_groups_ = document(json::object{{"kind", "APIGroupDiscoveryList"},
                                             {"apiVersion", "apidiscovery.k8s.io/v2"},
                                             {"metadata", json::object()},
                                             {"items", std::move(aggregated_groups)}});
  openapi_index_ = document(json::object{{"paths", std::move(openapi_paths)}});
  openapi_v2_json_ = document(openapi_v2);
  openapi_v2_protobuf_.body = encode_openapi_v2(openapi_v2);
  openapi_v2_protobuf_.etag = "\"" + sha512_hex(openapi_v2_protobuf_.body) + "\"";
}

HttpResponse Discovery::respond(const HttpRequest& request, const Document& document,
                                std::string content_type) const {
  HttpResponse response;
  response.headers = {
      {"Content-Type", std::move(content_type)}, {"Etag", document.etag}, {"Vary", "Accept"}};
  if (request.header("if-none-match") == document.etag) {
    response.status = 304;
    return response;
  }
  response.body = document.body;
  return response;
}

std::optional<HttpResponse> Discovery::serve(const HttpRequest& request) const {
  if (request.method != "GET" && request.method != "HEAD") return std::nullopt;
  const std::string& path = request.path;
  std::string_view accept = request.header("accept");
  if (path == "/version" || path == "/version/")
    return respond(request, version_, "application/json");
  if (path == "/api" || path == "/api/") {
    if (wants_aggregated(accept)) {
      auto response = respond(request, aggregated_core_, std::string(kAggregatedV2));
      response.headers.emplace_back("Cache-Control", "public");
      return response;
    }
    return respond(request, api_versions_, "application/json");
  }
  if (path == "/apis" || path == "/apis/") {
    if (wants_aggregated(accept)) {
      auto response = respond(request, aggregated_groups_, std::string(kAggregatedV2));
      response.headers.emplace_back("Cache-Control", "public");
      return response;
    }
    return respond(request, group_list_, "application/json");
  }
  if (path.starts_with("/openapi/")) return serve_openapi(request);
  std::string_view rest = path;
  if (rest.ends_with("/")) rest.remove_suffix(1);
  if (rest == "/api/v1") return respond(request, resource_lists_.at("v1"), "application/json");
  if (rest.starts_with("/apis/")) {
    rest.remove_prefix(6);
    auto slash = rest.find('/');
    if (slash == std::string_view::npos) {
      if (auto it = groups_.find(rest); it != groups_.end())
        return respond(request, it->second, "application/json");
    } else if (rest.find('/', slash + 1) == std::string_view::npos) {
      if (auto it = resource_lists_.find(rest); it != resource_lists_.end())
        return respond(request, it->second, "application/json");
    }
  }
  return std::nullopt;
}

std::optional<HttpResponse> Discovery::serve_openapi(const HttpRequest& request) const {
  std::string_view path = request.path;
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    // kube-openapi serves the protobuf form to an Accept naming it, JSON otherwise.
    bool protobuf =
        request.header("accept").find("com.github.proto-openapi.spec.v2") != std::string_view::npos;
    auto response = protobuf
                        ? respond(request, openapi_v2_protobuf_, std::string(kOpenApiV2Protobuf))
                        : respond(request, openapi_v2_json_, "application/json");
    response.headers.emplace_back("Cache-Control", "no-cache, private");
    return response;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/")
    return respond(request, openapi_index_, "application/json");
  if (!path.starts_with("/openapi/v3/")) return std::nullopt;
  auto key = path.substr(12);
  auto it = openapi_docs_.find(key);
  if (it == openapi_docs_.end()) return std::nullopt;
  const auto& doc = it->second;
  std::string current_hash = doc.etag.substr(1, doc.etag.size() - 2);
  auto hash = request.param("hash");
  if (hash && *hash != current_hash) {
    HttpResponse redirect;
    redirect.status = 301;
    redirect.headers = {{"Location", fmt::format("/openapi/v3/{}?hash={}", key, current_hash)}};
    return redirect;
  }
  auto response = respond(request, doc, "application/json");
  if (hash) {
    response.headers.emplace_back("Cache-Control", "public, immutable");
    response.headers.emplace_back("Expires",
                                  http_date(std::time(nullptr) + std::time_t{365} * 24 * 3600));
  } else {
    response.headers.emplace_back("Cache-Control", "no-cache, private");
  }
  return response;
}

}  // namespace rg::sim
