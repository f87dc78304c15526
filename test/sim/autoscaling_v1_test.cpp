// autoscaling/v1 HorizontalPodAutoscalers served from the autoscaling/v2 store, as the API
// server serves both versions: the conversion both ways (targetCPUUtilizationPercentage, the
// round-trip annotations), every verb through v1, watches seeing writes through the other
// version, discovery, Table rows and protobuf bodies.
#include <doctest/doctest.h>

#include "sim/hpa_conversion.hpp"
#include "sim/server.hpp"
#include "test/client/protobuf/encoder.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kWebScaleTarget;
using rg::sim::test::str;
using rg::sim::test::WatchStream;

namespace {

const std::string kV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const std::string kV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
std::string hpa(const std::string& version, const std::string& name, const std::string& spec) {
  return R"({"apiVersion":"autoscaling/)" + version +
         R"(","kind":"HorizontalPodAutoscaler","metadata":{"name":")" + name + R"("},"spec":)" +
         spec + "}";
}

const json::value* annotation(const json::value& object, std::string_view key) {
  const auto* annotations = object.at("metadata").as_object().if_contains("annotations");
  return annotations != nullptr ? annotations->as_object().if_contains(key) : nullptr;
}

json::value annotation_json(const json::value& object, std::string_view key) {
  const auto* text = annotation(object, key);
  REQUIRE_MESSAGE(text != nullptr, key);
  return json::parse(text->as_string());
}

const std::string kMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
const std::string kCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
const std::string kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
const std::string kBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

const json::object& entry_of(const json::value& object, std::string_view manager) {
  for (const auto& entry : object.at("metadata").at("managedFields").as_array())
    if (str(entry.at("manager")) == manager) return entry.as_object();
  FAIL("no managedFields entry of " << manager);
  static const json::object kNone;
  return kNone;
}

}  // namespace

TEST_CASE("v1 -> v2 -> v1: targetCPUUtilizationPercentage is the CPU Utilization metric") {
  rg::sim::Server server;
  auto port = server.port();
  auto created = call(port, "POST", kV1 + "?fieldManager=old-client",
                      hpa("v1", "web",
                          "{" + kWebScaleTarget +
                              R"(,"minReplicas":2,"maxReplicas":5,)"
                              R"("targetCPUUtilizationPercentage":70})"));
  REQUIRE_MESSAGE(created.status == 201, created.body);
  const auto v1 = created.json();
  CHECK(v1.at("apiVersion") == "autoscaling/v1");
  CHECK(v1.at("kind") == "HorizontalPodAutoscaler");
  CHECK(v1.at("spec") == json::parse("{" + kWebScaleTarget +
                                     R"(,"minReplicas":2,"maxReplicas":5,)"
                                     R"("targetCPUUtilizationPercentage":70})"));
  CHECK(v1.at("status") == json::parse(R"({"currentReplicas":0,"desiredReplicas":0})"));
  CHECK(annotation(v1, kMetricsAnnotation) == nullptr);
  // The manager's entry is in the version it wrote, with v1's field names.
  const auto& owner = entry_of(v1, "old-client");
  CHECK(owner.at("apiVersion") == "autoscaling/v1");
  CHECK(owner.at("fieldsV1").at("f:spec").as_object().contains("f:targetCPUUtilizationPercentage"));

  const auto v2 = call(port, "GET", kV2 + "/web").json();
  CHECK(v2.at("apiVersion") == "autoscaling/v2");
  CHECK(v2.at("spec").at("metrics") == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
        "target":{"type":"Utilization","averageUtilization":70}}}])"));
  CHECK(v2.at("metadata").at("resourceVersion") == v1.at("metadata").at("resourceVersion"));
  CHECK(v2.at("metadata").at("uid") == v1.at("metadata").at("uid"));
  CHECK(!v2.at("metadata").as_object().contains("annotations"));

  // Back through v1: what was created.
  auto again = call(port, "GET", kV1 + "/web");
  REQUIRE(again.status == 200);
  CHECK(again.json() == v1);

  // Without a CPU target, v1 means the 80% default.
  auto bare =
      call(port, "POST", kV1, hpa("v1", "bare", "{" + kWebScaleTarget + R"(,"maxReplicas":3})"));
  REQUIRE_MESSAGE(bare.status == 201, bare.body);
  CHECK(bare.json().at("spec").at("targetCPUUtilizationPercentage") == 80);
  CHECK(bare.json().at("spec").at("minReplicas") == 1);
}

TEST_CASE("v2 -> v1 -> v2: other metrics, current metrics, conditions and behavior round-trip") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string metrics =
      R"([{"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue",)"
      R"("averageValue":"10"}}},{"type":"Resource","resource":{"name":"cpu","target":)"
      R"({"type":"Utilization","averageUtilization":60}}}])";
  auto created = call(port, "POST", kV2,
                      hpa("v2", "web",
                          "{" + kWebScaleTarget + R"(,"maxReplicas":5,"metrics":)" + metrics +
                              R"(,"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}})"));
  REQUIRE_MESSAGE(created.status == 201, created.body);
  auto object = created.json();
  object.as_object()["status"] = json::parse(R"({"currentReplicas":3,"desiredReplicas":4,
      "currentMetrics":[{"type":"Pods","pods":{"metric":{"name":"rps"},"current":{"averageValue":"12"}}},
        {"type":"Resource","resource":{"name":"cpu","current":{"averageValue":"200m","averageUtilization":55}}}],
      "conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-30T00:00:00Z",
        "reason":"ReadyForNewScale","message":"recommended size matches current size"}]})");
  auto with_status = call(port, "PUT", kV2 + "/web/status", json::serialize(object));
  REQUIRE_MESSAGE(with_status.status == 200, with_status.body);
  const auto stored = with_status.json();

  auto read = call(port, "GET", kV1 + "/web");
  REQUIRE(read.status == 200);
  const auto v1 = read.json();
  CHECK(v1.at("spec").at("targetCPUUtilizationPercentage") == 60);
  CHECK(v1.at("spec").at("maxReplicas") == 5);
  CHECK(v1.at("status") == json::parse(R"({"currentReplicas":3,"desiredReplicas":4,
        "currentCPUUtilizationPercentage":55})"));
  CHECK(annotation_json(v1, kMetricsAnnotation) ==
        json::parse(R"([{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"10"}}])"));
  CHECK(annotation_json(v1, kCurrentMetricsAnnotation) ==
        json::parse(R"([{"type":"Pods","pods":{"metricName":"rps","currentAverageValue":"12"}},
        {"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,
        "currentAverageValue":"200m"}}])"));
  CHECK(annotation_json(v1, kConditionsAnnotation) == stored.at("status").at("conditions"));
  CHECK(annotation_json(v1, kBehaviorAnnotation) ==
        json::parse(R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max",
        "Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},
                    {"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},
        "ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max",
        "Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}})"));

  // An update through v1 (the object as read, maxReplicas changed) loses nothing of v2.
  auto changed = v1;
  changed.at("spec").as_object()["maxReplicas"] = 7;
  auto put = call(port, "PUT", kV1 + "/web", json::serialize(changed));
  REQUIRE_MESSAGE(put.status == 200, put.body);
  CHECK(put.json().at("apiVersion") == "autoscaling/v1");
  const auto after = call(port, "GET", kV2 + "/web").json();
  CHECK(after.at("spec").at("maxReplicas") == 7);
  CHECK(after.at("spec").at("metrics") == stored.at("spec").at("metrics"));
  CHECK(after.at("spec").at("behavior") == stored.at("spec").at("behavior"));
  CHECK(after.at("status") == stored.at("status"));
  CHECK(!after.at("metadata").as_object().contains("annotations"));
  CHECK(after.at("metadata").at("generation") == 2);
}

TEST_CASE("patches, server-side apply, the status subresource and delete through v1") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kV2, hpa("v2", "web", "{" + kWebScaleTarget + R"(,"maxReplicas":5})"))
              .status == 201);
  const auto cpu_target = [&] {
    return call(port, "GET", kV2 + "/web")
        .json()
        .at("spec")
        .at("metrics")
        .at(0)
        .at("resource")
        .at("target")
        .at("averageUtilization");
  };

  auto merge =
      call(port, "PATCH", kV1 + "/web", R"({"spec":{"targetCPUUtilizationPercentage":50}})",
           {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE_MESSAGE(merge.status == 200, merge.body);
  CHECK(merge.json().at("spec").at("targetCPUUtilizationPercentage") == 50);
  CHECK(cpu_target() == 50);

  auto json_patch =
      call(port, "PATCH", kV1 + "/web",
           R"([{"op":"replace","path":"/spec/targetCPUUtilizationPercentage","value":40}])",
           {{"Content-Type", "application/json-patch+json"}});
  REQUIRE_MESSAGE(json_patch.status == 200, json_patch.body);
  CHECK(cpu_target() == 40);

  auto strategic = call(port, "PATCH", kV1 + "/web",
                        R"({"spec":{"targetCPUUtilizationPercentage":30,"minReplicas":2}})",
                        {{"Content-Type", "application/strategic-merge-patch+json"}});
  REQUIRE_MESSAGE(strategic.status == 200, strategic.body);
  CHECK(cpu_target() == 30);

  // Conflicts are found across versions where the paths are the same (maxReplicas, written
  // through v2) and within v1 (targetCPUUtilizationPercentage): forced.
  auto conflict = call(port, "PATCH", kV1 + "/web?fieldManager=helm",
                       R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler",)"
                       R"("metadata":{"name":"web"},"spec":{"maxReplicas":9}})",
                       {{"Content-Type", "application/apply-patch+yaml"}});
  CHECK(conflict.status == 409);
  auto applied = call(port, "PATCH", kV1 + "/web?fieldManager=helm&force=true",
                      R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler",)"
                      R"("metadata":{"name":"web"},"spec":{"maxReplicas":9,)"
                      R"("targetCPUUtilizationPercentage":65}})",
                      {{"Content-Type", "application/apply-patch+yaml"}});
  REQUIRE_MESSAGE(applied.status == 200, applied.body);
  CHECK(applied.json().at("spec").at("maxReplicas") == 9);
  CHECK(cpu_target() == 65);
  const auto applied_object = applied.json();
  const auto& helm = entry_of(applied_object, "helm");
  CHECK(helm.at("operation") == "Apply");
  CHECK(helm.at("apiVersion") == "autoscaling/v1");
  // The v2 view shows the same entry.
  CHECK(entry_of(call(port, "GET", kV2 + "/web").json(), "helm").at("apiVersion") ==
        "autoscaling/v1");

  // Server-side apply creating through v1.
  auto apply_created = call(port, "PATCH", kV1 + "/fresh?fieldManager=helm",
                            R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler",)"
                            R"("metadata":{"name":"fresh"},"spec":{)" +
                                kWebScaleTarget + R"(,"maxReplicas":2}})",
                            {{"Content-Type", "application/apply-patch+yaml"}});
  REQUIRE_MESSAGE(apply_created.status == 201, apply_created.body);
  CHECK(call(port, "GET", kV2 + "/fresh").status == 200);

  // The status subresource: the CPU utilization is the v2 current metric.
  auto current = call(port, "GET", kV1 + "/web/status").json();
  CHECK(current.at("apiVersion") == "autoscaling/v1");
  current.as_object()["status"] = json::parse(
      R"({"currentReplicas":2,"desiredReplicas":3,"currentCPUUtilizationPercentage":90})");
  auto status = call(port, "PUT", kV1 + "/web/status", json::serialize(current));
  REQUIRE_MESSAGE(status.status == 200, status.body);
  const auto v2 = call(port, "GET", kV2 + "/web").json();
  CHECK(v2.at("status").at("desiredReplicas") == 3);
  CHECK(v2.at("status").at("currentMetrics") ==
        json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
        "current":{"averageUtilization":90}}}])"));
  CHECK(v2.at("spec").at("maxReplicas") == 9);  // the status write kept the spec

  auto deleted = call(port, "DELETE", kV1 + "/web");
  REQUIRE_MESSAGE(deleted.status == 200, deleted.body);
  CHECK(call(port, "GET", kV2 + "/web").status == 404);
  auto missing = call(port, "GET", kV1 + "/web");
  CHECK(missing.status == 404);
  CHECK(str(missing.json().at("message")) ==
        "horizontalpodautoscalers.autoscaling \"web\" not found");
}

TEST_CASE("lists and watches of one version see writes through the other, converted") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kV2, hpa("v2", "a", "{" + kWebScaleTarget + R"(,"maxReplicas":2})"))
              .status == 201);
  auto list = call(port, "GET", kV1);
  REQUIRE(list.status == 200);
  CHECK(list.json().at("kind") == "HorizontalPodAutoscalerList");
  CHECK(list.json().at("apiVersion") == "autoscaling/v1");
  CHECK(list.json().at("items").at(0).at("spec").at("targetCPUUtilizationPercentage") == 80);
  const std::string rv = str(list.json().at("metadata").at("resourceVersion"));

  WatchStream v1_watch(port, kV1 + "?watch=true&resourceVersion=" + rv);
  WatchStream v2_watch(port, kV2 + "?watch=true&resourceVersion=" + rv);
  REQUIRE(
      call(port, "POST", kV1,
           hpa("v1", "b",
               "{" + kWebScaleTarget + R"(,"maxReplicas":3,"targetCPUUtilizationPercentage":45})"))
          .status == 201);
  REQUIRE(call(port, "PATCH", kV2 + "/a", R"({"spec":{"maxReplicas":4}})",
               {{"Content-Type", "application/merge-patch+json"}})
              .status == 200);

  auto added_v1 = v1_watch.next_event();
  CHECK(added_v1.at("type") == "ADDED");
  CHECK(added_v1.at("object").at("apiVersion") == "autoscaling/v1");
  CHECK(added_v1.at("object").at("spec").at("targetCPUUtilizationPercentage") == 45);
  auto modified_v1 = v1_watch.next_event();
  CHECK(modified_v1.at("type") == "MODIFIED");
  CHECK(modified_v1.at("object").at("apiVersion") == "autoscaling/v1");
  CHECK(modified_v1.at("object").at("spec").at("maxReplicas") == 4);

  auto added_v2 = v2_watch.next_event();
  CHECK(added_v2.at("object").at("apiVersion") == "autoscaling/v2");
  CHECK(added_v2.at("object")
            .at("spec")
            .at("metrics")
            .at(0)
            .at("resource")
            .at("target")
            .at("averageUtilization") == 45);
  CHECK(added_v2.at("object").at("metadata").at("resourceVersion") ==
        added_v1.at("object").at("metadata").at("resourceVersion"));
  CHECK(v2_watch.next_event().at("object").at("apiVersion") == "autoscaling/v2");

  // A streaming list (watch-list) through v1: the objects, then the initial-events-end bookmark.
  WatchStream watch_list(port, kV1 +
                                   "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
                                   "&resourceVersionMatch=NotOlderThan");
  for (std::string name : {"a", "b"}) {
    auto event = watch_list.next_event();
    CHECK(event.at("type") == "ADDED");
    CHECK(event.at("object").at("apiVersion") == "autoscaling/v1");
    CHECK(str(event.at("object").at("metadata").at("name")) == name);
  }
  auto bookmark = watch_list.next_event();
  CHECK(bookmark.at("type") == "BOOKMARK");
  CHECK(bookmark.at("object").at("apiVersion") == "autoscaling/v1");
  CHECK(bookmark.at("object").at("kind") == "HorizontalPodAutoscaler");
  CHECK(bookmark.at("object").at("metadata").at("annotations").at("k8s.io/initial-events-end") ==
        "true");

  // A deletion through v2 reaches the v1 watch as DELETED of the v1 object.
  REQUIRE(call(port, "DELETE", kV2 + "/b").status == 200);
  auto deleted = v1_watch.next_event();
  CHECK(deleted.at("type") == "DELETED");
  CHECK(deleted.at("object").at("apiVersion") == "autoscaling/v1");
  CHECK(deleted.at("object").at("metadata").at("name") == "b");
}

TEST_CASE("discovery serves autoscaling v2 (preferred) and v1") {
  rg::sim::Server server;
  auto port = server.port();
  auto group = call(port, "GET", "/apis/autoscaling").json();
  CHECK(group.at("preferredVersion").at("version") == "v2");
  CHECK(group.at("versions") == json::parse(R"([{"groupVersion":"autoscaling/v2","version":"v2"},
        {"groupVersion":"autoscaling/v1","version":"v1"}])"));
  auto resources = call(port, "GET", "/apis/autoscaling/v1").json();
  std::vector<std::string> names;
  for (const auto& resource : resources.at("resources").as_array())
    names.push_back(str(resource.at("name")));
  CHECK(names ==
        std::vector<std::string>{"horizontalpodautoscalers", "horizontalpodautoscalers/status"});
  CHECK(resources.at("resources").at(0).at("shortNames") == json::parse(R"(["hpa"])"));

  const auto aggregated =
      call(port, "GET", "/apis", "",
           {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}})
          .json();
  bool found = false;
  for (const auto& item : aggregated.at("items").as_array()) {
    if (item.at("metadata").at("name") != "autoscaling") continue;
    found = true;
    CHECK(item.at("versions").at(0).at("version") == "v2");
    CHECK(item.at("versions").at(1).at("version") == "v1");
    CHECK(item.at("versions").at(1).at("resources").at(0).at("responseKind").at("version") == "v1");
  }
  CHECK(found);
  auto openapi = call(port, "GET", "/openapi/v3/apis/autoscaling/v1");
  REQUIRE(openapi.status == 200);
  CHECK(openapi.json()
            .at("paths")
            .at("/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers/{name}")
            .at("patch")
            .at("x-kubernetes-group-version-kind")
            .at("version") == "v1");
}

TEST_CASE("kubectl get hpa.v1.autoscaling: the same columns, v1 objects in the rows") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(
      call(port, "POST", kV1,
           hpa("v1", "web",
               "{" + kWebScaleTarget + R"(,"maxReplicas":5,"targetCPUUtilizationPercentage":50})"))
          .status == 201);
  auto table = call(port, "GET", kV1 + "?includeObject=Object", "",
                    {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
  REQUIRE(table.status == 200);
  const auto rows = table.json().at("rows");
  const auto& row = rows.at(0);
  CHECK(row.at("cells").at(1) == "Deployment/web");
  CHECK(row.at("cells").at(2) == "cpu: <unknown>/50%");
  CHECK(row.at("object").at("apiVersion") == "autoscaling/v1");
}

TEST_CASE("an autoscaling/v1 protobuf HorizontalPodAutoscaler is created as v2") {
  using rg::test::Encoder;
  rg::sim::Server server;
  Encoder spec;  // autoscaling/v1 HorizontalPodAutoscalerSpec
  spec.message(1, Encoder().bytes(1, "Deployment").bytes(2, "web").bytes(3, "apps/v1"))
      .varint(2, 2)
      .varint(3, 5)
      .varint(4, 75);
  Encoder object;
  object.message(1, rg::test::new_object_meta("web", "default")).message(2, spec);
  auto created = call(server.port(), "POST", kV1,
                      rg::test::envelope("autoscaling/v1", "HorizontalPodAutoscaler", object),
                      {{"Content-Type", "application/vnd.kubernetes.protobuf"}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  CHECK(created.json().at("spec").at("targetCPUUtilizationPercentage") == 75);
  auto v2 = call(server.port(), "GET", kV2 + "/web").json();
  CHECK(v2.at("spec").at("metrics").at(0).at("resource").at("target").at("averageUtilization") ==
        75);
  CHECK(v2.at("spec").at("minReplicas") == 2);
}

TEST_CASE("deletecollection through v1 answers v1 objects") {
  rg::sim::Server server;
  auto port = server.port();
  for (std::string name : {"a", "b"})
    REQUIRE(call(port, "POST", kV2, hpa("v2", name, "{" + kWebScaleTarget + R"(,"maxReplicas":2})"))
                .status == 201);
  auto deleted = call(port, "DELETE", kV1);
  REQUIRE_MESSAGE(deleted.status == 200, deleted.body);
  const auto list = deleted.json();
  CHECK(list.at("apiVersion") == "autoscaling/v1");
  REQUIRE(list.at("items").as_array().size() == 2);
  CHECK(list.at("items").at(0).at("spec").at("targetCPUUtilizationPercentage") == 80);
  CHECK(call(port, "GET", kV2).json().at("items").as_array().empty());
}

TEST_CASE("RBAC: a rule on horizontalpodautoscalers in autoscaling covers both versions") {
  rg::sim::ServerOptions options;
  options.auth.enabled = true;
  rg::sim::Server server(options);
  auto port = server.port();
  const std::vector<std::pair<std::string, std::string>> admin = {
      {"Authorization", "Bearer " + server.admin_token()}};
  REQUIRE(call(port, "POST", "/api/v1/namespaces/default/serviceaccounts",
               R"({"metadata":{"name":"reader"}})", admin)
              .status == 201);
  REQUIRE(call(port, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
               R"({"metadata":{"name":"hpa-reader"},"rules":[{"apiGroups":["autoscaling"],)"
               R"("resources":["horizontalpodautoscalers"],"verbs":["get","list"]}]})",
               admin)
              .status == 201);
  REQUIRE(call(port, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
               R"({"metadata":{"name":"hpa-reader"},"roleRef":{"apiGroup":)"
               R"("rbac.authorization.k8s.io","kind":"Role","name":"hpa-reader"},)"
               R"("subjects":[{"kind":"ServiceAccount","name":"reader","namespace":"default"}]})",
               admin)
              .status == 201);
  auto token = call(port, "POST", "/api/v1/namespaces/default/serviceaccounts/reader/token",
                    R"({"spec":{}})", admin);
  REQUIRE(token.status == 201);
  const std::vector<std::pair<std::string, std::string>> reader = {
      {"Authorization", "Bearer " + str(token.json().at("status").at("token"))}};
  CHECK(call(port, "GET", kV1, "", reader).status == 200);
  CHECK(call(port, "GET", kV2, "", reader).status == 200);
  auto denied = call(port, "POST", kV1,
                     hpa("v1", "web", "{" + kWebScaleTarget + R"(,"maxReplicas":2})"), reader);
  CHECK(denied.status == 403);
  CHECK(str(denied.json().at("message")) ==
        "horizontalpodautoscalers.autoscaling is forbidden: User "
        "\"system:serviceaccount:default:reader\" cannot create resource "
        "\"horizontalpodautoscalers\" in API group \"autoscaling\" in the namespace \"default\"");
}

TEST_CASE("the conversion of every metric source: v1's shapes in the annotations, lossless back") {
  const auto v2 = json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
    "metadata":{"name":"web","namespace":"default","annotations":{"team":"a"}},
    "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "minReplicas":1,"maxReplicas":9,"metrics":[
      {"type":"Object","object":{"describedObject":{"apiVersion":"networking.k8s.io/v1",
        "kind":"Ingress","name":"main"},"target":{"type":"Value","value":"100"},
        "metric":{"name":"requests"}}},
      {"type":"External","external":{"metric":{"name":"queue","selector":{"matchLabels":
        {"q":"jobs"}}},"target":{"type":"AverageValue","averageValue":"30"}}},
      {"type":"ContainerResource","containerResource":{"name":"memory","target":
        {"type":"Utilization","averageUtilization":70},"container":"app"}},
      {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization",
        "averageUtilization":50}}}]},
    "status":{"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[
      {"type":"Object","object":{"metric":{"name":"requests"},"current":{"value":"90"},
        "describedObject":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","name":"main"}}},
      {"type":"ContainerResource","containerResource":{"name":"memory","current":
        {"averageValue":"300Mi","averageUtilization":65},"container":"app"}}]}})")
                      .as_object();
  const auto v1 = rg::sim::hpa_v2_to_v1(v2);
  CHECK(v1.at("spec").at("targetCPUUtilizationPercentage") == 50);
  CHECK(v1.at("metadata").at("annotations").at("team") == "a");
  CHECK(annotation_json(v1, kMetricsAnnotation) == json::parse(R"([
    {"type":"Object","object":{"target":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress",
      "name":"main"},"metricName":"requests","targetValue":"100"}},
    {"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":
      {"q":"jobs"}},"targetAverageValue":"30"}},
    {"type":"ContainerResource","containerResource":{"name":"memory",
      "targetAverageUtilization":70,"container":"app"}}])"));
  CHECK(annotation_json(v1, kCurrentMetricsAnnotation) == json::parse(R"([
    {"type":"Object","object":{"target":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress",
      "name":"main"},"metricName":"requests","currentValue":"90"}},
    {"type":"ContainerResource","containerResource":{"name":"memory",
      "currentAverageUtilization":65,"currentAverageValue":"300Mi","container":"app"}}])"));
  CHECK(!v1.at("status").as_object().contains("currentCPUUtilizationPercentage"));
  CHECK(rg::sim::hpa_v1_to_v2(v1) == v2);
}

TEST_CASE("a v1 write with a round-trip annotation that is not JSON gets 400") {
  rg::sim::Server server;
  auto body = json::parse(hpa("v1", "web", "{" + kWebScaleTarget + R"(,"maxReplicas":2})"));
  body.at("metadata").as_object()["annotations"] =
      json::object{{"autoscaling.alpha.kubernetes.io/metrics", "not json"}};
  auto created = call(server.port(), "POST", kV1, json::serialize(body));
  CHECK(created.status == 400);
  CHECK(str(created.json().at("message")) ==
        "the autoscaling.alpha.kubernetes.io/metrics annotation of an autoscaling/v1 "
        "HorizontalPodAutoscaler must be a JSON array; remove it or write the fields through "
        "autoscaling/v2");
}

TEST_CASE("dry-run create through v1 answers the v1 object and stores nothing") {
  rg::sim::Server server;
  auto created = call(server.port(), "POST", kV1 + "?dryRun=All",
                      hpa("v1", "web", "{" + kWebScaleTarget + R"(,"maxReplicas":2})"));
  REQUIRE_MESSAGE(created.status == 201, created.body);
  CHECK(created.json().at("apiVersion") == "autoscaling/v1");
  CHECK(created.json().at("spec").at("targetCPUUtilizationPercentage") == 80);
  CHECK(call(server.port(), "GET", kV2 + "/web").status == 404);
}

TEST_CASE(
    "a write through one version takes the changed fields from the other version's managers") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(
      call(port, "POST", kV1 + "?fieldManager=old-client",
           hpa("v1", "web",
               "{" + kWebScaleTarget + R"(,"maxReplicas":5,"targetCPUUtilizationPercentage":70})"))
          .status == 201);
  // Through v2, another manager changes the CPU metric (v1's targetCPUUtilizationPercentage).
  auto patched = call(port, "PATCH", kV2 + "/web?fieldManager=new-client",
                      R"({"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":)"
                      R"({"type":"Utilization","averageUtilization":40}}}]}})",
                      {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  const auto object = patched.json();
  const auto& old_client = entry_of(object, "old-client");
  CHECK(old_client.at("apiVersion") == "autoscaling/v1");
  const auto& spec = old_client.at("fieldsV1").at("f:spec").as_object();
  CHECK(!spec.contains("f:targetCPUUtilizationPercentage"));
  CHECK(spec.contains("f:maxReplicas"));
  CHECK(entry_of(object, "new-client").at("apiVersion") == "autoscaling/v2");

  // And the other way: a v1 write of the CPU target takes spec.metrics from the v2 manager.
  CHECK(
      entry_of(object, "new-client").at("fieldsV1").at("f:spec").as_object().contains("f:metrics"));
  auto through_v1 = call(port, "PATCH", kV1 + "/web?fieldManager=old-client",
                         R"({"spec":{"targetCPUUtilizationPercentage":55}})",
                         {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE_MESSAGE(through_v1.status == 200, through_v1.body);
  const auto after = through_v1.json();
  CHECK(entry_of(after, "old-client")
            .at("fieldsV1")
            .at("f:spec")
            .as_object()
            .contains("f:targetCPUUtilizationPercentage"));
  // new-client owned nothing else, so its entry is gone.
  for (const auto& entry : after.at("metadata").at("managedFields").as_array())
    CHECK(entry.at("manager") != "new-client");
}
