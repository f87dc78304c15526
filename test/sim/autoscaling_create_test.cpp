// kube-sim's HorizontalPodAutoscaler creates as the API server's HPA strategy makes them: the
// client's status is dropped (PrepareForCreate), and fieldValidation=Strict rejects an unknown
// top-level field through either served version.
#include <doctest/doctest.h>

#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;

namespace {

std::string hpa_document(const std::string& version, const std::string& name,
                         const std::string& rest) {
  return R"({"apiVersion":"autoscaling/)" + version +
         R"(","kind":"HorizontalPodAutoscaler","metadata":{"name":")" + name +
         R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment",)"
         R"("name":"web"},"maxReplicas":5})" +
         rest + "}";
}

std::string hpas(const std::string& version) {
  return "/apis/autoscaling/" + version + "/namespaces/default/horizontalpodautoscalers";
}

}  // namespace

TEST_CASE("HPA create drops the client's status, in both versions") {
  rg::sim::Server server;
  auto v2 = call(server.port(), "POST", hpas("v2"),
                 hpa_document("v2", "a", R"(,"status":{"currentReplicas":7,"desiredReplicas":9})"));
  REQUIRE_MESSAGE(v2.status == 201, v2.body);
  // currentMetrics has no omitempty (autoscaling/v2 types.go): a fresh HPA shows it null.
  const json::object empty_v2_status{{"desiredReplicas", 0}, {"currentMetrics", nullptr}};
  CHECK(v2.json().at("status") == empty_v2_status);
  auto v1 = call(server.port(), "POST", hpas("v1"),
                 hpa_document("v1", "b", R"(,"status":{"currentReplicas":7,"desiredReplicas":9})"));
  REQUIRE_MESSAGE(v1.status == 201, v1.body);
  CHECK(v1.json().at("status") == json::object{{"currentReplicas", 0}, {"desiredReplicas", 0}});
  auto stored = call(server.port(), "GET", hpas("v2") + "/b").json();
  CHECK(stored.at("status") == empty_v2_status);
}

TEST_CASE("HPA fieldValidation: Strict rejects an unknown top-level field, Warn warns") {
  rg::sim::Server server;
  for (std::string version : {"v2", "v1"}) {
    CAPTURE(version);
    auto strict = call(server.port(), "POST", hpas(version) + "?fieldValidation=Strict",
                       hpa_document(version, "s" + version, R"(,"extra":1)"));
    CHECK(strict.status == 400);
    CHECK(std::string(strict.json().at("message").as_string()) ==
          "HorizontalPodAutoscaler in version \"" + version +
              "\" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: "
              "unknown field \"extra\"");
    auto warn = call(server.port(), "POST", hpas(version) + "?fieldValidation=Warn",
                     hpa_document(version, "w" + version, R"(,"extra":1)"));
    CHECK(warn.status == 201);
    CHECK(warn.header("warning") == "299 - \"unknown field \\\"extra\\\"\"");
  }
}
