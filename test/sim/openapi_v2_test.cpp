// kube-sim's /openapi/v2: the Swagger 2.0 JSON document (a definition per served kind, references
// that resolve, patch operations) and its protobuf form read back field by field.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>

#include "client/protobuf/wire_reader.hpp"
#include "sim/openapi_v2.hpp"
#include "sim/openapi_v2_definitions.hpp"
#include "sim/resource_table.hpp"
#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::client::protobuf::WireField;
using rg::client::protobuf::WireReader;
using rg::sim::test::call;

namespace {

constexpr const char* kProtobufAccept =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// Every "$ref" anywhere in `value`.
void collect_refs(const json::value& value, std::set<std::string>& refs) {
  if (const auto* object = value.if_object()) {
    for (const auto& [key, field] : *object) {
      if (key == "$ref") refs.emplace(field.as_string());
      collect_refs(field, refs);
    }
  } else if (const auto* array = value.if_array()) {
    for (const auto& item : *array) collect_refs(item, refs);
  }
}

/// The length-delimited fields numbered `number` of a protobuf message.
std::vector<std::string_view> fields(std::string_view message, std::uint32_t number) {
  std::vector<std::string_view> out;
  WireReader reader(message);
  WireField field;
  while (reader.next(field))
    if (field.number == number) out.push_back(field.bytes);
  return out;
}

std::string_view field(std::string_view message, std::uint32_t number) {
  auto all = fields(message, number);
  REQUIRE(all.size() == 1);
  return all.front();
}

}  // namespace

TEST_CASE("/openapi/v2 is Swagger 2.0 JSON with an ETag, and 304 for a matching If-None-Match") {
  rg::sim::Server server;
  auto reply =
      call(server.port(), "GET", "/openapi/v2?timeout=32s", "", {{"Accept", "application/json"}});
  REQUIRE(reply.status == 200);
  CHECK(reply.header("content-type") == "application/json");
  CHECK(reply.header("vary") == "Accept");
  auto document = reply.json().as_object();
  CHECK(document.at("swagger") == "2.0");
  CHECK(document.at("info").at("title") == "Kubernetes");
  CHECK(document.at("info").at("version") == "v1.35.0-kube-sim");
  const auto& patch = document.at("paths")
                          .at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")
                          .at("patch");
  CHECK(patch.at("operationId") == "patchAppsV1NamespacedDeployment");
  CHECK(patch.at("x-kubernetes-group-version-kind").at("kind") == "Deployment");
  bool has_field_validation = false;
  for (const auto& parameter : patch.at("parameters").as_array())
    has_field_validation |= parameter.at("name") == "fieldValidation";
  CHECK(has_field_validation);
  CHECK(document.at("paths")
            .at("/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}")
            .at("patch")
            .at("operationId") == "patchRbacAuthorizationV1ClusterRole");
  CHECK(document.at("paths")
            .at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale")
            .at("patch")
            .at("operationId") == "patchAppsV1NamespacedDeploymentScale");

  auto again = call(server.port(), "GET", "/openapi/v2", "",
                    {{"Accept", "*/*"}, {"If-None-Match", reply.header("etag")}});
  CHECK(again.status == 304);
  CHECK(again.body.empty());
}

TEST_CASE("/openapi/v2 has a definition per served kind and every reference resolves") {
  rg::sim::Server server;
  auto document = call(server.port(), "GET", "/openapi/v2").json().as_object();
  const auto& definitions = document.at("definitions").as_object();
  auto check_kind = [&](const std::string& group, const std::string& version,
                        const std::string& kind) {
    auto name = rg::sim::definition_name(group, version, kind);
    CAPTURE(name);
    REQUIRE(definitions.contains(name));
    const auto& gvks = definitions.at(name).at("x-kubernetes-group-version-kind").as_array();
    REQUIRE(gvks.size() == 1);
    CHECK(gvks[0] == json::object{{"group", group}, {"kind", kind}, {"version", version}});
    CHECK(definitions.at(name).at("properties").as_object().contains("metadata"));
  };
  for (const auto& type : rg::sim::ResourceTable::builtin().types()) {
    check_kind(type.group, type.version, type.kind);
    for (const auto& sub : type.subresources) check_kind(sub.group, sub.version, sub.kind);
  }
  std::set<std::string> refs;
  collect_refs(document, refs);
  CHECK(refs.size() > 20);
  for (const auto& ref : refs) {
    CAPTURE(ref);
    REQUIRE(ref.starts_with("#/definitions/"));
    CHECK(definitions.contains(ref.substr(14)));
  }

  // Fields come from the protobuf tables: nested messages, pointers, shared meta types.
  const auto& deployment = definitions.at("io.k8s.api.apps.v1.Deployment").at("properties");
  CHECK(deployment.at("metadata").at("$ref") ==
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(deployment.at("spec").at("$ref") == "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  const auto& spec = definitions.at("io.k8s.api.apps.v1.DeploymentSpec").at("properties");
  CHECK(spec.at("replicas") == json::object{{"type", "integer"}, {"format", "int32"}});
  CHECK(spec.at("template").at("$ref") == "#/definitions/io.k8s.api.core.v1.PodTemplateSpec");
  const auto& pod_spec = definitions.at("io.k8s.api.core.v1.PodSpec").at("properties");
  CHECK(pod_spec.at("containers").at("type") == "array");
  CHECK(pod_spec.at("containers").at("items").at("$ref") ==
        "#/definitions/io.k8s.api.core.v1.Container");
  // kubectl's client-side apply takes list merge keys from here once /openapi/v2 exists.
  const auto& env = definitions.at("io.k8s.api.core.v1.Container").at("properties").at("env");
  CHECK(env.at("x-kubernetes-patch-merge-key") == "name");
  CHECK(env.at("x-kubernetes-patch-strategy") == "merge");
  CHECK(pod_spec.at("volumes").at("x-kubernetes-patch-strategy") == "merge,retainKeys");
  CHECK(definitions.at("io.k8s.api.core.v1.Container")
            .at("properties")
            .at("ports")
            .at("x-kubernetes-patch-merge-key") == "containerPort");
  const auto& meta =
      definitions.at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").at("properties");
  CHECK(meta.at("labels") ==
        json::object{{"type", "object"}, {"additionalProperties", {{"type", "string"}}}});
  CHECK(meta.at("finalizers").at("x-kubernetes-list-type") == "set");
  CHECK(meta.at("creationTimestamp").at("$ref") ==
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  // The two HorizontalPodAutoscaler versions keep their own fields.
  CHECK(definitions.at("io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec")
            .at("properties")
            .as_object()
            .contains("targetCPUUtilizationPercentage"));
  CHECK(definitions.at("io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec")
            .at("properties")
            .as_object()
            .contains("metrics"));
}

TEST_CASE("/openapi/v2 as protobuf is the same document as a gnostic openapi.v2.Document") {
  rg::sim::Server server;
  auto reply =
      call(server.port(), "GET", "/openapi/v2?timeout=32s", "", {{"Accept", kProtobufAccept}});
  REQUIRE(reply.status == 200);
  CHECK(reply.header("content-type") ==
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  auto json_reply = call(server.port(), "GET", "/openapi/v2");
  CHECK(reply.header("etag") != json_reply.header("etag"));
  auto document = json_reply.json().as_object();

  std::string_view body = reply.body;
  CHECK(field(body, 1) == "2.0");                   // swagger
  CHECK(field(field(body, 2), 1) == "Kubernetes");  // info.title
  auto paths = fields(field(body, 8), 2);           // paths.path: NamedPathItem
  CHECK(paths.size() == document.at("paths").as_object().size());
  auto definitions = fields(field(body, 9), 1);  // definitions: NamedSchema
  REQUIRE(definitions.size() == document.at("definitions").as_object().size());

  std::string_view deployment;
  for (auto named : definitions)
    if (field(named, 1) == "io.k8s.api.apps.v1.Deployment") deployment = field(named, 2);
  REQUIRE(!deployment.empty());
  CHECK(field(field(deployment, 22), 1) == "object");  // type: TypeItem.value
  auto extension = field(deployment, 31);              // vendor_extension: NamedAny
  CHECK(field(extension, 1) == "x-kubernetes-group-version-kind");
  auto yaml = field(field(extension, 2), 2);  // Any.yaml
  CHECK(json::parse(yaml) ==
        json::array{json::object{{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}});
  std::string_view spec;
  for (auto property : fields(field(deployment, 25), 1))  // properties: NamedSchema
    if (field(property, 1) == "spec") spec = field(property, 2);
  CHECK(field(spec, 1) == "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");  // _ref
}

TEST_CASE("each /openapi/v3 document carries the v2 definitions its kinds reach") {
  rg::sim::Server server;
  auto definitions = call(server.port(), "GET", "/openapi/v2").json().at("definitions").as_object();
  auto document = call(server.port(), "GET", "/openapi/v3/apis/apps/v1").json();
  const auto& schemas = document.at("components").at("schemas").as_object();
  const auto& deployment = schemas.at("io.k8s.api.apps.v1.Deployment");
  CHECK(deployment.at("x-kubernetes-group-version-kind") ==
        definitions.at("io.k8s.api.apps.v1.Deployment").at("x-kubernetes-group-version-kind"));
  CHECK(deployment.at("properties").at("spec").at("$ref") ==
        "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec");
  CHECK(schemas.contains("io.k8s.api.core.v1.Container"));
  CHECK(!schemas.contains("io.k8s.api.core.v1.Pod"));  // another group-version's kind
  std::set<std::string> refs;
  collect_refs(document.at("components"), refs);
  CHECK(!refs.empty());
  for (const auto& ref : refs) {
    CAPTURE(ref);
    REQUIRE(ref.starts_with("#/components/schemas/"));
    CHECK(schemas.contains(ref.substr(21)));
  }
}

TEST_CASE("the protobuf encoder names a key it has no field for instead of dropping it") {
  json::object document{{"swagger", "2.0"},
                        {"definitions", {{"X", {{"type", "object"}, {"minLength", 1}}}}}};
  CHECK_THROWS_WITH_AS(rg::sim::encode_openapi_v2(document),
                       "OpenAPI v2: no protobuf field for \"minLength\" in Schema",
                       std::invalid_argument);
}
