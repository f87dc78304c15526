// kube-sim's autoscaling/v2 HorizontalPodAutoscalers as the API server serves them: the printer
// columns of `kubectl get hpa`.
#include <doctest/doctest.h>

#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::str;

namespace {

const std::string kHpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const std::string kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

std::string hpa(const std::string& name, const std::string& spec) {
  return R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":")" +
         name + R"("},"spec":)" + spec + "}";
}

const std::string kTarget =
    R"("scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

}  // namespace

TEST_CASE("kubectl get hpa: the built-in printer's columns and cells") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kHpas,
               hpa("web", "{" + kTarget +
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
