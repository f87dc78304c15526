// OpenAPI definitions from the protobuf schema tables (see openapi_v2_definitions.hpp).
#include "sim/openapi_v2_definitions.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "client/protobuf/decoder.hpp"
#include "client/protobuf/schema.hpp"
#include "sim/apply/list_types.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;
namespace pb = client::protobuf;

constexpr std::string_view kMetaPackage = "io.k8s.apimachinery.pkg.apis.meta.v1";
constexpr std::string_view kTime = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/// Messages of apimachinery's meta/v1 that the kinds' tables share.
bool is_meta(std::string_view message) {
  constexpr std::string_view kMeta[] = {
      "ObjectMeta",    "OwnerReference",           "ManagedFieldsEntry", "Preconditions",
      "LabelSelector", "LabelSelectorRequirement", "DeleteOptions"};
  return std::find(std::begin(kMeta), std::end(kMeta), message) != std::end(kMeta);
}

/// "io.k8s.api.apps.v1": the Go package of a group-version's types, as definition names use it.
std::string package_of(std::string_view group, std::string_view version) {
  if (group == "apiextensions.k8s.io")
    return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + std::string(version);
  std::string_view name = group.empty() ? "core" : group.substr(0, group.find('.'));
  return "io.k8s.api." + std::string(name) + "." + std::string(version);
}

json::object reference(std::string_view name) {
  return {{"$ref", "#/definitions/" + std::string(name)}};
}

json::object typed(std::string_view type, std::string_view format = {}) {
  json::object schema{{"type", type}};
  if (!format.empty()) schema["format"] = format;
  return schema;
}

struct Kind {
  std::string group, version, kind;
  const pb::MessageSpec* spec;  ///< null: no protobuf table
};

/// Builds the definitions in two passes: name every message the kinds reach (a served kind's
/// message under its kind's name, shared meta/v1 and core/v1 messages in their own packages, any
/// other in the package of the first kind reaching it), then build each named message.
class DefinitionBuilder {
 public:
  /// Names the message of a served kind; call for every kind before claim().
  void name_kind(const pb::MessageSpec& spec, std::string name) {
    taken_.insert(name);
    names_.emplace(&spec, std::move(name));
  }

  /// Names `spec` (if unnamed) and every message it reaches, in `package` unless meta/v1.
  /// `kind` and `path` (field names from the kind's root) say where the message was first
  /// reached: its lists merge as they do there (apply/list_types.hpp).
  void claim(const pb::MessageSpec& spec, std::string_view package, std::string_view kind,
             std::vector<std::string> path) {
    if (!claimed_.insert(&spec).second) return;
    if (!names_.contains(&spec)) {
      std::string base =
          std::string(is_meta(spec.name) ? kMetaPackage : package) + "." + std::string(spec.name);
      std::string name = base;
      for (int n = 2; taken_.contains(name); ++n) name = base + std::to_string(n);
      taken_.insert(name);
      names_.emplace(&spec, std::move(name));
    }
    for (const auto& field : spec.fields) {
      if (field.message == nullptr) continue;
      auto field_path = path;
      if (field.kind != pb::FieldKind::kInline) field_path.emplace_back(field.json_name);
      claim(*field.message, package, kind, std::move(field_path));
    }
    places_.emplace(&spec, Place{std::string(kind), std::move(path)});
  }

  /// The definitions: every named message, and each served kind (its message, or only type and
  /// object metadata when it has no table) marked with its group-version-kind.
  json::object build(const std::vector<Kind>& kinds) {
    for (const auto& [spec, name] : names_) {
      json::object properties;
      add_fields(*spec, places_.at(spec), properties);
      definitions_[name] = json::object{{"type", "object"}, {"properties", std::move(properties)}};
    }
    for (const auto& kind : kinds) {
      std::string name = definition_name(kind.group, kind.version, kind.kind);
      auto& schema = definitions_[name];
      if (kind.spec == nullptr)
        schema = {
            {"type", "object"},
            {"properties", json::object{{"metadata", reference(names_.at(&pb::kObjectMeta))}}}};
      auto& properties = schema.as_object()["properties"].as_object();
      properties["apiVersion"] = typed("string");
      properties["kind"] = typed("string");
      schema.as_object()["x-kubernetes-group-version-kind"] = json::array{
          json::object{{"group", kind.group}, {"kind", kind.kind}, {"version", kind.version}}};
    }
    return std::move(definitions_);
  }

 private:
  struct Place {
    std::string kind;
    std::vector<std::string> path;
  };

  void add_fields(const pb::MessageSpec& spec, const Place& place, json::object& properties) {
    for (const auto& field : spec.fields) {
      if (field.kind == pb::FieldKind::kInline) {
        add_fields(*field.message, place, properties);
        continue;
      }
      json::object value = field_schema(field);
      auto path = place.path;
      path.emplace_back(field.json_name);
      if ((field.flags & pb::kRepeated) != 0) {
        value = {{"type", "array"}, {"items", std::move(value)}};
        add_list_extensions(apply::list_type(place.kind, path), value);
      }
      // The Go types' patchStrategy "retainKeys" (kubectl's client-side apply reads it here).
      if (spec.name == "DeploymentSpec" && field.json_name == "strategy")
        value["x-kubernetes-patch-strategy"] = "retainKeys";
      if (spec.name == "PodSpec" && field.json_name == "volumes")
        value["x-kubernetes-patch-strategy"] = "merge,retainKeys";
      properties[field.json_name] = std::move(value);
    }
  }

  /// How strategic merge and server-side apply merge a list, as the API server's schema says.
  static void add_list_extensions(const apply::ListType& list, json::object& schema) {
    if (list.kind == apply::ListKind::kSet) {
      schema["x-kubernetes-list-type"] = "set";
      schema["x-kubernetes-patch-strategy"] = "merge";
    } else if (list.kind == apply::ListKind::kMap) {
      json::array keys;
      for (auto key : list.keys) keys.emplace_back(key);
      schema["x-kubernetes-list-map-keys"] = std::move(keys);
      schema["x-kubernetes-list-type"] = "map";
      schema["x-kubernetes-patch-merge-key"] = list.merge_key;
      schema["x-kubernetes-patch-strategy"] = "merge";
    }
  }

  json::object field_schema(const pb::FieldSpec& field) {
    using K = pb::FieldKind;
    switch (field.kind) {
      case K::kString:
        return typed("string");
      case K::kBytes:
        return typed("string", "byte");
      case K::kBool:
        return typed("boolean");
      case K::kInt32:
        return typed("integer", "int32");
      case K::kInt64:
        return typed("integer", "int64");
      case K::kMessage:
      case K::kInline:
        return reference(names_.at(field.message));
      case K::kTime:
        return reference(shared(kTime, typed("string", "date-time")));
      case K::kQuantity:
        return reference(shared(kQuantity, typed("string")));
      case K::kIntOrString:
        return reference(shared(kIntOrString, typed("string", "int-or-string")));
      case K::kRawJson:
        return typed("object");
      case K::kStringMap:
        return {{"type", "object"}, {"additionalProperties", typed("string")}};
      case K::kBytesMap:
        return {{"type", "object"}, {"additionalProperties", typed("string", "byte")}};
      case K::kQuantityMap:
        return {{"type", "object"},
                {"additionalProperties", reference(shared(kQuantity, typed("string")))}};
    }
    return typed("object");
  }

  /// A definition several kinds share (Time, Quantity, IntOrString), added on first use.
  std::string_view shared(std::string_view name, json::object schema) {
    if (!definitions_.contains(name)) definitions_[name] = std::move(schema);
    return name;
  }

  json::object definitions_;
  std::map<const pb::MessageSpec*, std::string> names_;
  std::set<const pb::MessageSpec*> claimed_;
  std::map<const pb::MessageSpec*, Place> places_;
  std::set<std::string, std::less<>> taken_;
};

}  // namespace

std::string definition_name(std::string_view group, std::string_view version,
                            std::string_view kind) {
  return package_of(group, version) + "." + std::string(kind);
}

json::object openapi_definitions(const ResourceTable& table) {
  std::vector<Kind> kinds;
  auto add = [&](const std::string& group, const std::string& version, const std::string& kind) {
    std::string api_version = group.empty() ? version : group + "/" + version;
    auto same = [&](const Kind& k) {
      return k.group == group && k.version == version && k.kind == kind;
    };
    if (std::none_of(kinds.begin(), kinds.end(), same))
      kinds.push_back({group, version, kind, pb::find_schema(api_version, kind)});
  };
  for (const auto& type : table.types()) {
    add(type.group, type.version, type.kind);
    for (const auto& sub : type.subresources) add(sub.group, sub.version, sub.kind);
  }
  DefinitionBuilder builder;
  for (const auto& kind : kinds)
    if (kind.spec != nullptr)
      builder.name_kind(*kind.spec, definition_name(kind.group, kind.version, kind.kind));
  // core/v1's shared messages first, so that apps/v1 refers to io.k8s.api.core.v1.PodTemplateSpec.
  const std::string core = package_of("", "v1");
  for (const auto* spec :
       {&pb::kObjectMeta, &pb::kPodTemplateSpec, &pb::kObjectReference, &pb::kLocalObjectReference})
    builder.claim(*spec, core, "",
                  spec == &pb::kObjectMeta ? std::vector<std::string>{"metadata"}
                                           : std::vector<std::string>{});
  for (const auto& kind : kinds)
    if (kind.spec != nullptr)
      builder.claim(*kind.spec, package_of(kind.group, kind.version), kind.kind, {});
  return builder.build(kinds);
}

}  // namespace rg::sim
