// kube-sim's protocol surface: discovery, OpenAPI, Table output, patch types, the scale
// subresource and injected faults.
#include <doctest/doctest.h>

#include "sim/server.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kDeployments;
using rg::sim::test::kTableAccept;
using rg::sim::test::str;
using rg::sim::test::WatchStream;

namespace {

const std::string kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

std::string deployment_with_env(const std::string& name) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":2,"selector":{"matchLabels":{"app":")" + name +
         R"("}},"template":{"metadata":{"labels":{"app":")" + name +
         R"("}},"spec":{"containers":[{"name":"c","image":"nginx:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}})";
}

}  // namespace

TEST_CASE("aggregated discovery answers by Accept with ETag and 304") {
  rg::sim::Server server;
  auto port = server.port();
  auto aggregated = call(port, "GET", "/apis", "", {{"Accept", kDiscoveryAccept}});
  CHECK(aggregated.status == 200);
  CHECK(aggregated.header("content-type") ==
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  auto etag = aggregated.header("etag");
  CHECK(etag.size() == 130);
  auto body = aggregated.json();
  CHECK(body.at("kind") == "APIGroupDiscoveryList");
  bool found_scale = false;
  for (const auto& group : body.at("items").as_array())
    if (group.at("metadata").at("name") == "apps")
      for (const auto& resource : group.at("versions").at(0).at("resources").as_array())
        if (resource.at("resource") == "deployments")
          for (const auto& sub : resource.at("subresources").as_array())
            if (sub.at("subresource") == "scale")
              found_scale = sub.at("responseKind").at("group") == "autoscaling";
  CHECK(found_scale);
  auto cached =
      call(port, "GET", "/apis", "", {{"Accept", kDiscoveryAccept}, {"If-None-Match", etag}});
  CHECK(cached.status == 304);

  auto legacy = call(port, "GET", "/api", "", {{"Accept", "application/json"}}).json();
  CHECK(legacy.at("kind") == "APIVersions");
  auto resources = call(port, "GET", "/apis/apps/v1").json();
  CHECK(resources.at("kind") == "APIResourceList");
  CHECK(resources.at("groupVersion") == "apps/v1");
  auto version = call(port, "GET", "/version?timeout=32s").json();
  CHECK(version.at("major") == "1");
}

TEST_CASE("the OpenAPI v3 index points at hashed per-group-version documents") {
  rg::sim::Server server;
  auto port = server.port();
  auto index = call(port, "GET", "/openapi/v3").json();
  std::string url(index.at("paths").at("apis/apps/v1").at("serverRelativeURL").as_string());
  auto doc = call(port, "GET", url);
  CHECK(doc.status == 200);
  CHECK(doc.header("cache-control") == "public, immutable");
  CHECK(doc.header("etag") == "\"" + url.substr(url.find("hash=") + 5) + "\"");
  const auto document = doc.json();
  const auto& patch = document.at("paths")
                          .at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")
                          .at("patch");
  CHECK(patch.at("x-kubernetes-group-version-kind").at("kind") == "Deployment");
  bool has_field_validation = false;
  for (const auto& parameter : patch.at("parameters").as_array())
    has_field_validation |= parameter.at("name") == "fieldValidation";
  CHECK(has_field_validation);
  auto stale = call(port, "GET", "/openapi/v3/apis/apps/v1?hash=00");
  CHECK(stale.status == 301);
  CHECK(stale.header("location") == url);
}

TEST_CASE("Table output carries printer columns and PartialObjectMetadata") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, deployment_with_env("web")).status == 201);
  auto table =
      call(port, "GET", kDeployments + "?limit=500", "", {{"Accept", kTableAccept}}).json();
  CHECK(table.at("kind") == "Table");
  CHECK(table.at("apiVersion") == "meta.k8s.io/v1");
  std::vector<std::string> names;
  for (const auto& column : table.at("columnDefinitions").as_array())
    if (column.at("priority") == 0) names.emplace_back(column.at("name").as_string());
  CHECK(names == std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available", "Age"});
  const auto& row = table.at("rows").at(0);
  CHECK(row.at("cells").at(0) == "web");
  CHECK(row.at("cells").at(1) == "0/2");
  CHECK(row.at("object").at("kind") == "PartialObjectMetadata");
  CHECK(row.at("object").at("metadata").at("namespace") == "default");

  auto generic =
      call(port, "GET", "/api/v1/namespaces/default/configmaps", "", {{"Accept", kTableAccept}})
          .json();
  CHECK(generic.at("columnDefinitions").at(1).at("name") == "Created At");

  WatchStream watch(port,
                    kDeployments + "?watch=true&resourceVersion=" +
                        std::to_string(server.store().resource_version()),
                    {{"Accept", kTableAccept}});
  REQUIRE(call(port, "DELETE", kDeployments + "/web").status == 200);
  auto event = watch.next_event();
  CHECK(event.at("type") == "DELETED");
  CHECK(event.at("object").at("kind") == "Table");
  CHECK(event.at("object").at("rows").as_array().size() == 1);
  CHECK(!event.at("object").at("columnDefinitions").as_array().empty());
}

TEST_CASE("merge, JSON and strategic merge patches") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, deployment_with_env("web")).status == 201);
  auto merged =
      call(port, "PATCH", kDeployments + "/web", R"({"metadata":{"labels":{"tier":"x"}}})",
           {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE(merged.status == 200);
  CHECK(merged.json().at("metadata").at("labels").at("tier") == "x");

  auto jsonpatch = call(
      port, "PATCH", kDeployments + "/web",
      R"([{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":4}])",
      {{"Content-Type", "application/json-patch+json"}});
  REQUIRE(jsonpatch.status == 200);
  CHECK(jsonpatch.json().at("spec").at("replicas") == 4);
  auto failed = call(port, "PATCH", kDeployments + "/web",
                     R"([{"op":"test","path":"/spec/replicas","value":9}])",
                     {{"Content-Type", "application/json-patch+json"}});
  CHECK(failed.status == 422);

  // kubectl's own strategic patch: env B deleted, image changed, containers merged by name.
  auto strategic = call(
      port, "PATCH", kDeployments + "/web",
      R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"$setElementOrder/env":[{"name":"A"}],"env":[{"$patch":"delete","name":"B"}],"image":"nginx:2","name":"c"}]}}}})",
      {{"Content-Type", "application/strategic-merge-patch+json"}});
  REQUIRE(strategic.status == 200);
  const auto patched_object = strategic.json();
  const auto& container =
      patched_object.at("spec").at("template").at("spec").at("containers").at(0);
  CHECK(container.at("image") == "nginx:2");
  CHECK(container.at("env") == json::parse(R"([{"name":"A","value":"1"}])"));
  CHECK(strategic.json().at("metadata").at("generation") == 3);

  auto unknown = call(port, "PATCH", kDeployments + "/web", "{}", {{"Content-Type", "text/plain"}});
  CHECK(unknown.status == 415);
}

TEST_CASE("a body that is not UTF-8 is a 400, never stored") {
  // Found by test/fuzz/sim_patch: a YAML patch with a key holding the byte 0x91 was stored as
  // is, and every later GET and LIST of the object was malformed JSON.
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, deployment_with_env("web")).status == 201);
  auto patched = call(port, "PATCH", kDeployments + "/web",
                      "metadata:\n  labels:\n    s\x91"
                      "c: x\n",
                      {{"Content-Type", "application/merge-patch+json"}});
  CHECK(patched.status == 400);
  CHECK(str(patched.json().at("message")).find("not valid UTF-8 (byte 25)") != std::string::npos);
  auto created = call(port, "POST", kDeployments,
                      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \xff\n",
                      {{"Content-Type", "application/yaml"}});
  CHECK(created.status == 400);
  // Valid UTF-8 that yaml-cpp turns into invalid UTF-8: NUL bytes (read as a UTF-32 stream)
  // and an escaped lone surrogate. go-yaml refuses both too.
  const std::string nul_bytes("\x11\0\0\0\x11\0\0\0]", 9);
  auto controls = call(port, "PATCH", kDeployments + "/web", nul_bytes,
                       {{"Content-Type", "application/merge-patch+json"}});
  CHECK(controls.status == 400);
  CHECK(str(controls.json().at("message")).find("control character 0x11 (byte 0)") !=
        std::string::npos);
  auto surrogate =
      call(port, "PATCH", kDeployments + "/web", "metadata:\n  labels:\n    a: \"\\ud800\"\n",
           {{"Content-Type", "application/merge-patch+json"}});
  CHECK(surrogate.status == 400);
  auto got = call(port, "GET", kDeployments + "/web");
  REQUIRE(got.status == 200);
  CHECK(got.json().at("metadata").as_object().if_contains("labels") == nullptr);
}

TEST_CASE("the scale subresource reads and writes spec.replicas as autoscaling/v1 Scale") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, deployment_with_env("web")).status == 201);
  auto scale = call(port, "GET", kDeployments + "/web/scale").json();
  CHECK(scale.at("kind") == "Scale");
  CHECK(scale.at("apiVersion") == "autoscaling/v1");
  CHECK(scale.at("spec").at("replicas") == 2);
  CHECK(scale.at("status") == json::parse(R"({"replicas":0,"selector":"app=web"})"));
  auto patched = call(port, "PATCH", kDeployments + "/web/scale", R"({"spec":{"replicas":3}})",
                      {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE(patched.status == 200);
  CHECK(patched.json().at("spec").at("replicas") == 3);
  CHECK(call(port, "GET", kDeployments + "/web").json().at("spec").at("replicas") == 3);
  scale.at("spec").at("replicas") = 7;  // stale resourceVersion
  CHECK(call(port, "PUT", kDeployments + "/web/scale", json::serialize(scale)).status == 409);
}

TEST_CASE("injected faults answer Status errors with Retry-After") {
  rg::sim::Server server;
  auto port = server.port();
  auto set =
      call(port, "PUT", "/sim/faults", R"({"errorRate":1,"errorCode":429,"retryAfterSeconds":3})");
  CHECK(set.status == 200);
  auto limited = call(port, "GET", "/api/v1/pods");
  CHECK(limited.status == 429);
  CHECK(limited.header("retry-after") == "3");
  CHECK(limited.json().at("reason") == "TooManyRequests");
  CHECK(call(port, "DELETE", "/sim/faults").status == 200);
  CHECK(call(port, "GET", "/api/v1/pods").status == 200);
}

TEST_CASE("injected faults apply to the endpoints sim/auth answers: access reviews, tokens") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string access_review = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  const std::string review_body =
      R"({"spec":{"resourceAttributes":{"verb":"list","resource":"pods"}}})";
  const std::string whoami = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  const std::string token = "/api/v1/namespaces/default/serviceaccounts/default/token";
  REQUIRE(call(port, "POST", access_review, review_body).status == 201);
  REQUIRE(call(port, "PUT", "/sim/faults", R"({"errorRate":1,"errorCode":500})").status == 200);
  auto faulted = call(port, "POST", access_review, review_body);
  CHECK(faulted.status == 500);
  CHECK(faulted.json().at("reason") == "InternalError");
  CHECK(call(port, "POST", whoami, "{}").status == 500);
  CHECK(call(port, "POST", token, R"({"spec":{}})").status == 500);
  REQUIRE(call(port, "DELETE", "/sim/faults").status == 200);
  CHECK(call(port, "POST", access_review, review_body).json().at("status").at("allowed") == true);
  CHECK(call(port, "POST", whoami, "{}").status == 201);
}
