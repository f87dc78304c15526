// The /openapi/v2 document and its protobuf form (see openapi_v2.hpp). Field numbers are those of
// gnostic's openapiv2/OpenAPIv2.proto (package openapi.v2), which kube-openapi serves.
#include "sim/openapi_v2.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "client/protobuf/wire_writer.hpp"
#include "sim/openapi_v2_definitions.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;
using client::protobuf::WireWriter;

json::object parameter(std::string_view name, std::string_view in, std::string_view type) {
  json::object out{{"name", name}, {"in", in}, {"type", type}, {"uniqueItems", true}};
  if (in == "path") out["required"] = true;
  return out;
}

json::object patch_operation(const std::string& operation_id, const std::string& group,
                             const std::string& version, const std::string& kind) {
  json::array parameters;
  for (std::string_view name : {"dryRun", "fieldManager", "fieldValidation"})
    parameters.push_back(parameter(name, "query", "string"));
  parameters.push_back(parameter("force", "query", "boolean"));
  json::object schema{{"$ref", "#/definitions/" + definition_name(group, version, kind)}};
  // No "consumes": kubectl's client-side apply then finds no patch type here and computes its
  // strategic merge patch from the Go types compiled into it, as it did before kube-sim served
  // /openapi/v2 -- the definitions hold only the fields of the protobuf tables, and a kind
  // without a table has none, which would make kubectl warn and fall back anyway.
  return {{"operationId", operation_id},
          {"produces", json::array{"application/json", "application/yaml",
                                   "application/vnd.kubernetes.protobuf"}},
          {"parameters", std::move(parameters)},
          {"responses",
           json::object{{"200", json::object{{"description", "OK"}, {"schema", schema}}},
                        {"201", json::object{{"description", "Created"}, {"schema", schema}}}}},
          {"x-kubernetes-action", "patch"},
          {"x-kubernetes-group-version-kind",
           json::object{{"group", group}, {"version", version}, {"kind", kind}}}};
}

std::string capitalized(std::string_view word) {
  std::string out(word);
  if (!out.empty())
    out.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(out.front())));
  return out;
}

/// "CoreV1", "AppsV1", "RbacAuthorizationV1": how operation ids name a group-version.
std::string operation_group_version(std::string_view group, std::string_view version) {
  std::string out;
  if (group.ends_with(".k8s.io")) group.remove_suffix(7);
  if (group.empty()) group = "core";
  bool upper = true;
  for (char c : group) {
    if (c == '.') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out + capitalized(version);
}

json::object paths(const ResourceTable& table) {
  json::object out;
  auto add = [&](const std::string& path, bool namespaced, json::object patch) {
    json::array parameters{parameter("name", "path", "string")};
    if (namespaced) parameters.push_back(parameter("namespace", "path", "string"));
    out[path] = json::object{{"parameters", std::move(parameters)}, {"patch", std::move(patch)}};
  };
  for (const auto& type : table.types()) {
    std::string prefix =
        type.group.empty() ? "/api/" + type.version : "/apis/" + type.group_version();
    std::string base = type.namespaced ? prefix + "/namespaces/{namespace}/" + type.resource
                                       : prefix + "/" + type.resource;
    std::string id = fmt::format("patch{}{}{}", operation_group_version(type.group, type.version),
                                 type.namespaced ? "Namespaced" : "", type.kind);
    if (std::find(type.verbs.begin(), type.verbs.end(), "patch") != type.verbs.end())
      add(base + "/{name}", type.namespaced,
          patch_operation(id, type.group, type.version, type.kind));
    for (const auto& sub : type.subresources)
      if (std::find(sub.verbs.begin(), sub.verbs.end(), "patch") != sub.verbs.end())
        add(base + "/{name}/" + sub.name, type.namespaced,
            patch_operation(id + capitalized(sub.name), sub.group, sub.version, sub.kind));
  }
  return out;
}

// ---- protobuf encoding: one function per gnostic message, fed the JSON this file builds ----

[[noreturn]] void unsupported(std::string_view message, std::string_view key) {
  throw std::invalid_argument(
      fmt::format("OpenAPI v2: no protobuf field for \"{}\" in {}", key, message));
}

/// openapi.v2.NamedAny {name = 1; Any value = 2} with Any {string yaml = 2}: a vendor extension.
/// JSON is YAML, so the value's JSON is its yaml.
WireWriter named_any(std::string_view name, const json::value& value) {
  WireWriter any;
  any.string(2, json::serialize(value));
  WireWriter out;
  out.string(1, name).message(2, any);
  return out;
}

void strings(WireWriter& out, std::uint32_t number, const json::value& values) {
  for (const auto& v : values.as_array()) out.string(number, v.as_string());
}

WireWriter schema(const json::object& in) {
  WireWriter out;
  for (const auto& [key, value] : in) {
    if (key == "$ref") {
      out.string(1, value.as_string());
    } else if (key == "format") {
      out.string(2, value.as_string());
    } else if (key == "description") {
      out.string(4, value.as_string());
    } else if (key == "required") {
      strings(out, 19, value);
    } else if (key == "additionalProperties") {
      WireWriter item;  // AdditionalPropertiesItem {Schema schema = 1; bool boolean = 2}
      if (value.is_bool()) {
        item.varint(2, value.as_bool() ? 1 : 0);
      } else {
        item.message(1, schema(value.as_object()));
      }
      out.message(21, item);
    } else if (key == "type") {
      WireWriter type;  // TypeItem {repeated string value = 1}
      type.string(1, value.as_string());
      out.message(22, type);
    } else if (key == "items") {
      WireWriter items;  // ItemsItem {repeated Schema schema = 1}
      items.message(1, schema(value.as_object()));
      out.message(23, items);
    } else if (key == "properties") {
      WireWriter properties;  // Properties {repeated NamedSchema additional_properties = 1}
      for (const auto& [name, property] : value.as_object()) {
        WireWriter named;
        named.string(1, name).message(2, schema(property.as_object()));
        properties.message(1, named);
      }
      out.message(25, properties);
    } else if (key.starts_with("x-")) {
      out.message(31, named_any(key, value));
    } else {
      unsupported("Schema", key);
    }
  }
  return out;
}

/// ParametersItem {Parameter parameter = 1}, Parameter {NonBodyParameter non_body_parameter = 2},
/// NonBodyParameter {QueryParameterSubSchema = 3; PathParameterSubSchema = 4}.
WireWriter parameters_item(const json::object& in) {
  const bool query = in.at("in").as_string() == "query";
  // Field numbers of {required, in, name, type, uniqueItems} in each sub-schema.
  const std::uint32_t type_field = query ? 6 : 5;
  const std::uint32_t unique_field = query ? 20 : 19;
  WireWriter sub;
  for (const auto& [key, value] : in) {
    if (key == "required") {
      sub.boolean(1, value.as_bool());
    } else if (key == "in") {
      sub.string(2, value.as_string());
    } else if (key == "name") {
      sub.string(4, value.as_string());
    } else if (key == "type") {
      sub.string(type_field, value.as_string());
    } else if (key == "uniqueItems") {
      sub.boolean(unique_field, value.as_bool());
    } else {
      unsupported("Parameter", key);
    }
  }
  WireWriter non_body;
  non_body.message(query ? 3 : 4, sub);
  WireWriter parameter;
  parameter.message(2, non_body);
  WireWriter item;
  item.message(1, parameter);
  return item;
}

/// Responses {repeated NamedResponseValue response_code = 1}; NamedResponseValue {name = 1;
/// ResponseValue value = 2}; ResponseValue {Response response = 1}; Response {description = 1;
/// SchemaItem schema = 2}; SchemaItem {Schema schema = 1}.
WireWriter responses(const json::object& in) {
  WireWriter out;
  for (const auto& [code, value] : in) {
    WireWriter response;
    for (const auto& [key, field] : value.as_object()) {
      if (key == "description") {
        response.string(1, field.as_string());
      } else if (key == "schema") {
        WireWriter item;
        item.message(1, schema(field.as_object()));
        response.message(2, item);
      } else {
        unsupported("Response", key);
      }
    }
    WireWriter response_value;
    response_value.message(1, response);
    WireWriter named;
    named.string(1, code).message(2, response_value);
    out.message(1, named);
  }
  return out;
}

WireWriter operation(const json::object& in) {
  WireWriter out;
  for (const auto& [key, value] : in) {
    if (key == "operationId") {
      out.string(5, value.as_string());
    } else if (key == "produces") {
      strings(out, 6, value);
    } else if (key == "consumes") {
      strings(out, 7, value);
    } else if (key == "parameters") {
      for (const auto& p : value.as_array()) out.message(8, parameters_item(p.as_object()));
    } else if (key == "responses") {
      out.message(9, responses(value.as_object()));
    } else if (key.starts_with("x-")) {
      out.message(13, named_any(key, value));
    } else {
      unsupported("Operation", key);
    }
  }
  return out;
}

WireWriter path_item(const json::object& in) {
  constexpr std::pair<std::string_view, std::uint32_t> kOperations[] = {
      {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
  WireWriter out;
  for (const auto& entry : in) {
    const std::string_view key = entry.key();
    const auto& value = entry.value();
    const auto* op = std::find_if(std::begin(kOperations), std::end(kOperations),
                                  [key](const auto& o) { return o.first == key; });
    if (op != std::end(kOperations)) {
      out.message(op->second, operation(value.as_object()));
    } else if (key == "parameters") {
      for (const auto& p : value.as_array()) out.message(9, parameters_item(p.as_object()));
    } else {
      unsupported("PathItem", key);
    }
  }
  return out;
}

}  // namespace

json::object openapi_v2_document(const ResourceTable& table, const std::string& version) {
  return {{"swagger", "2.0"},
          {"info", json::object{{"title", "Kubernetes"}, {"version", version}}},
          {"paths", paths(table)},
          {"definitions", openapi_definitions(table)}};
}

std::string encode_openapi_v2(const json::object& document) {
  WireWriter out;
  for (const auto& [key, value] : document) {
    if (key == "swagger") {
      out.string(1, value.as_string());
    } else if (key == "info") {
      WireWriter info;  // Info {title = 1; version = 2}
      info.string(1, value.at("title").as_string()).string(2, value.at("version").as_string());
      out.message(2, info);
    } else if (key == "paths") {
      WireWriter paths;  // Paths {repeated NamedPathItem path = 2}
      for (const auto& [path, item] : value.as_object()) {
        WireWriter named;
        named.string(1, path).message(2, path_item(item.as_object()));
        paths.message(2, named);
      }
      out.message(8, paths);
    } else if (key == "definitions") {
      WireWriter definitions;  // Definitions {repeated NamedSchema additional_properties = 1}
      for (const auto& [name, definition] : value.as_object()) {
        WireWriter named;
        named.string(1, name).message(2, schema(definition.as_object()));
        definitions.message(1, named);
      }
      out.message(9, definitions);
    } else {
      unsupported("Document", key);
    }
  }
  return out.take();
}

}  // namespace rg::sim
