// kube-sim's autoscaling/v2 HorizontalPodAutoscalers as the API server serves them: the defaults
// (minReplicas, the CPU metric, behavior rules), validation with the real messages, the printer
// columns of `kubectl get hpa`, and protobuf bodies as `kubectl autoscale` sends them.
#include <doctest/doctest.h>

#include "sim/server.hpp"
#include "test/client/protobuf/encoder.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kTableAccept;
using rg::sim::test::kWebScaleTarget;
using rg::sim::test::str;

namespace {

const std::string kHpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

std::string hpa_v2(const std::string& name, const std::string& spec) {
  return R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":")" +
         name + R"("},"spec":)" + spec + "}";
}

}  // namespace

TEST_CASE("HPA defaults: minReplicas 1, CPU at 80%, behavior completed only when given") {
  rg::sim::Server server;
  auto created = call(server.port(), "POST", kHpas,
                      hpa_v2("web", "{" + kWebScaleTarget + R"(,"maxReplicas":5})"));
  REQUIRE_MESSAGE(created.status == 201, created.body);
  const auto web = created.json();
  const auto& spec = web.at("spec").as_object();
  CHECK(spec.at("minReplicas") == 1);
  CHECK(spec.at("metrics") == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
        "target":{"type":"Utilization","averageUtilization":80}}}])"));
  CHECK(!spec.contains("behavior"));

  auto tuned = call(server.port(), "POST", kHpas,
                    hpa_v2("api", "{" + kWebScaleTarget +
                                      R"(,"minReplicas":2,"maxReplicas":6,"behavior":{"scaleDown":)"
                                      R"({"stabilizationWindowSeconds":60}}})"));
  REQUIRE_MESSAGE(tuned.status == 201, tuned.body);
  const auto api = tuned.json();
  const auto& behavior = api.at("spec").at("behavior");
  CHECK(behavior.at("scaleDown") ==
        json::parse(R"({"selectPolicy":"Max","stabilizationWindowSeconds":60,
        "policies":[{"type":"Percent","value":100,"periodSeconds":15}]})"));
  CHECK(behavior.at("scaleUp") ==
        json::parse(R"({"selectPolicy":"Max","stabilizationWindowSeconds":0,
        "policies":[{"type":"Pods","value":4,"periodSeconds":15},
                    {"type":"Percent","value":100,"periodSeconds":15}]})"));
  CHECK(api.at("spec").at("minReplicas") == 2);
}

TEST_CASE("HPA validation: the API server's 422 messages and causes") {
  rg::sim::Server server;
  auto port = server.port();
  auto below = call(port, "POST", kHpas,
                    hpa_v2("web", "{" + kWebScaleTarget + R"(,"minReplicas":3,"maxReplicas":2})"));
  CHECK(below.status == 422);
  CHECK(str(below.json().at("message")) ==
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.maxReplicas: Invalid value: "
        "2: must be greater than or equal to `minReplicas`");
  CHECK(below.json().at("details").at("kind") == "HorizontalPodAutoscaler");
  CHECK(
      below.json().at("details").at("causes") ==
      json::parse(R"([{"reason":"FieldValueInvalid","message":"Invalid value: 2: must be greater )"
                  R"(than or equal to `minReplicas`","field":"spec.maxReplicas"}])"));

  auto untargeted =
      call(port, "POST", kHpas, hpa_v2("web", R"({"minReplicas":0,"maxReplicas":1})"));
  CHECK(untargeted.status == 422);
  CHECK(str(untargeted.json().at("message")) ==
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: [spec.minReplicas: Invalid value: "
        "0: must be greater than or equal to 1, spec.scaleTargetRef.kind: Required value, "
        "spec.scaleTargetRef.name: Required value]");

  auto rules =
      call(port, "POST", kHpas,
           hpa_v2("web", "{" + kWebScaleTarget +
                             R"(,"maxReplicas":3,"behavior":{"scaleUp":{"selectPolicy":"Most",)"
                             R"("stabilizationWindowSeconds":4000,"policies":[{"type":"Pods",)"
                             R"("value":0,"periodSeconds":15}]}}})"));
  CHECK(rules.status == 422);
  CHECK(
      str(rules.json().at("message")) ==
      "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: "
      "[spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than "
      "or equal to 3600, spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Most\": "
      "supported values: \"Disabled\", \"Max\", \"Min\", spec.behavior.scaleUp.policies[0].value: "
      "Invalid value: 0: must be greater than zero]");

  auto metric =
      call(port, "POST", kHpas,
           hpa_v2("web", "{" + kWebScaleTarget +
                             R"(,"maxReplicas":3,"metrics":[{"type":"Resource",)"
                             R"("resource":{"name":"cpu","target":{"type":"Utilization"}}}]})"));
  CHECK(metric.status == 422);
  CHECK(str(metric.json().at("message")) ==
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: "
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
        "target raw value or a target utilization");

  // Updates are validated too.
  REQUIRE(call(port, "POST", kHpas, hpa_v2("ok", "{" + kWebScaleTarget + R"(,"maxReplicas":3})"))
              .status == 201);
  auto patched = call(port, "PATCH", kHpas + "/ok", R"({"spec":{"maxReplicas":0}})",
                      {{"Content-Type", "application/merge-patch+json"}});
  CHECK(patched.status == 422);
}

TEST_CASE("kubectl get hpa: the built-in printer's columns and cells") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kHpas,
               hpa_v2("web", "{" + kWebScaleTarget +
                                 R"(,"minReplicas":2,"maxReplicas":5,"metrics":[)"
                                 R"({"type":"Resource","resource":{"name":"cpu","target":)"
                                 R"({"type":"Utilization","averageUtilization":50}}},)"
                                 R"({"type":"Pods","pods":{"metric":{"name":"rps"},"target":)"
                                 R"({"type":"AverageValue","averageValue":"10"}}},)"
                                 R"({"type":"Resource","resource":{"name":"memory","target":)"
                                 R"({"type":"AverageValue","averageValue":"1Gi"}}}]})"))
              .status == 201);
  auto table = call(port, "GET", kHpas, "", {{"Accept", kTableAccept}});
  REQUIRE(table.status == 200);
  const auto listed = table.json();
  std::vector<std::string> names;
  for (const auto& column : listed.at("columnDefinitions").as_array())
    names.push_back(str(column.at("name")));
  CHECK(names == std::vector<std::string>{"Name", "Reference", "Targets", "MinPods", "MaxPods",
                                          "Replicas", "Age"});
  const auto& cells = listed.at("rows").at(0).at("cells").as_array();
  REQUIRE(cells.size() == 7);
  CHECK(cells.at(0) == "web");
  CHECK(cells.at(1) == "Deployment/web");
  CHECK(cells.at(2) == "cpu: <unknown>/50%, <unknown>/10 + 1 more...");
  CHECK(cells.at(3) == "2");
  CHECK(cells.at(4) == 5);
  CHECK(cells.at(5) == 0);

  // With a status: the current values.
  auto hpa_object = call(port, "GET", kHpas + "/web").json();
  hpa_object.as_object()["status"] = json::parse(R"({"currentReplicas":3,"desiredReplicas":3,
      "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":42,
      "averageValue":"120m"}}},{"type":"Pods","pods":{"metric":{"name":"rps"},"current":{"averageValue":"7"}}}]})");
  REQUIRE(call(port, "PUT", kHpas + "/web/status", json::serialize(hpa_object)).status == 200);
  auto updated = call(port, "GET", kHpas + "/web", "", {{"Accept", kTableAccept}});
  const auto shown = updated.json();
  const auto& row = shown.at("rows").at(0).at("cells").as_array();
  CHECK(row.at(2) == "cpu: 42%/50%, 7/10 + 1 more...");
  CHECK(row.at(5) == 3);
}

TEST_CASE("kubectl autoscale's protobuf HorizontalPodAutoscaler is created and defaulted") {
  using rg::test::Encoder;
  rg::sim::Server server;
  Encoder spec;
  spec.message(1, Encoder().bytes(1, "Deployment").bytes(2, "web").bytes(3, "apps/v1"))
      .varint(2, 2)
      .varint(3, 5);
  Encoder object;
  object.message(1, rg::test::new_object_meta("web", "default")).message(2, spec);
  auto created = call(server.port(), "POST", kHpas + "?fieldManager=kubectl-autoscale",
                      rg::test::envelope("autoscaling/v2", "HorizontalPodAutoscaler", object),
                      {{"Content-Type", "application/vnd.kubernetes.protobuf"},
                       {"Accept", "application/vnd.kubernetes.protobuf,application/json"}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  CHECK(created.json().at("spec").at("minReplicas") == 2);
  CHECK(created.json().at("spec").at("maxReplicas") == 5);
  CHECK(created.json().at("spec").at("metrics").at(0).at("resource").at("name") == "cpu");
  CHECK(created.json().at("metadata").at("managedFields").at(0).at("manager") ==
        "kubectl-autoscale");
}
