// Discovery documents parsed (aggregated v2 with a stale version, the legacy APIVersions,
// APIGroupList and APIResourceList) and looked up through the ResourceIndex: kinds to resources
// and scope, preferred versions, singular and short names, failures named.
#include <doctest/doctest.h>

#include <boost/json/parse.hpp>

#include "client/discovery/api_resources.hpp"
#include "client/discovery/resource_index.hpp"

using namespace rg::client;

namespace {

constexpr std::string_view kAggregatedCore = R"({
  "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
  "items": [{"metadata": {}, "versions": [{"version": "v1", "freshness": "Current", "resources": [
    {"resource": "pods", "responseKind": {"group": "", "version": "v1", "kind": "Pod"},
     "scope": "Namespaced", "singularResource": "pod", "verbs": ["get", "list", "watch"],
     "shortNames": ["po"], "subresources": [{"subresource": "status", "verbs": ["get"]}]},
    {"resource": "nodes", "responseKind": {"group": "", "version": "v1", "kind": "Node"},
     "scope": "Cluster", "singularResource": "node", "verbs": ["get"]}]}]}]})";

constexpr std::string_view kAggregatedGroups = R"({
  "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
  "items": [
   {"metadata": {"name": "example.com"}, "versions": [
     {"version": "v2", "resources": [
       {"resource": "widgets", "responseKind": {"group": "example.com", "version": "v2",
        "kind": "Widget"}, "scope": "Namespaced", "singularResource": "widget",
        "shortNames": ["wd"], "verbs": ["list"]}]},
     {"version": "v1", "resources": [
       {"resource": "widgets", "responseKind": {"group": "example.com", "version": "v1",
        "kind": "Widget"}, "scope": "Namespaced", "singularResource": "widget", "verbs": ["list"]},
       {"resource": "gizmos", "responseKind": {"group": "example.com", "version": "v1",
        "kind": "Gizmo"}, "scope": "Cluster", "singularResource": "gizmo", "verbs": ["list"]}]}]},
   {"metadata": {"name": "metrics.k8s.io"}, "versions": [
     {"version": "v1beta1", "freshness": "Stale", "resources": []}]}]})";

DiscoveryResult aggregated() {
  DiscoveryResult result;
  discovery::parse_aggregated(boost::json::parse(kAggregatedCore), result);
  discovery::parse_aggregated(boost::json::parse(kAggregatedGroups), result);
  return result;
}

}  // namespace

TEST_CASE("aggregated discovery: groups, preferred version first, stale versions as failures") {
  const DiscoveryResult result = aggregated();
  REQUIRE(result.groups.size() == 2);
  CHECK(result.groups[0].group.empty());
  CHECK(result.groups[0].resources.size() == 2);  // the status subresource is left out
  CHECK(result.groups[1].group == "example.com");
  CHECK(result.groups[1].versions == std::vector<std::string>{"v2", "v1"});
  REQUIRE(result.failed.size() == 1);
  CHECK(result.failed.begin()->first == "metrics.k8s.io/v1beta1");
  CHECK(result.failed.begin()->second.find("stale") != std::string::npos);
}

TEST_CASE("ResourceIndex: kinds to resources and scope, preferred or asked versions") {
  const ResourceIndex index(aggregated());
  const APIResource* pod = index.find_kind({"", "", "Pod"});
  REQUIRE(pod);
  CHECK(pod->resource == "pods");
  CHECK(pod->namespaced);
  const APIResource* node = index.find_kind({"", "v1", "Node"});
  REQUIRE(node);
  CHECK_FALSE(node->namespaced);
  const APIResource* widget = index.find_kind({"example.com", "", "Widget"});
  REQUIRE(widget);
  CHECK(widget->version == "v2");  // preferred
  CHECK(index.find_kind({"example.com", "v1", "Widget"})->version == "v1");
  CHECK(index.find_kind({"example.com", "", "Gizmo"})->version == "v1");  // only in v1
  CHECK_FALSE(index.find_kind({"example.com", "v2", "Gizmo"}));
  CHECK_FALSE(index.find_kind({"", "", "Widget"}));             // wrong group
  CHECK_FALSE(index.find_kind({"example.com", "", "widget"}));  // kinds are case-sensitive

  SUBCASE("resources by plural, singular or short name, in any case") {
    CHECK(index.find_resource({"", "", "pods"})->kind == "Pod");
    CHECK(index.find_resource({"", "", "Pod"})->kind == "Pod");
    CHECK(index.find_resource({"", "v1", "po"})->kind == "Pod");
    CHECK(index.find_resource({"example.com", "", "wd"})->version == "v2");
    CHECK(index.find_resource({"example.com", "v1", "widget"})->version == "v1");
    CHECK_FALSE(index.find_resource({"example.com", "", "pods"}));
  }
  SUBCASE("a failed group version names itself") {
    CHECK(index.failure("metrics.k8s.io", "").find("metrics.k8s.io/v1beta1") != std::string::npos);
    CHECK(index.failure("metrics.k8s.io", "v1beta1") != "");
    CHECK(index.failure("metrics.k8s.io", "v1") == "");
    CHECK(index.failure("example.com", "") == "");
  }
}

TEST_CASE("legacy discovery documents") {
  CHECK(discovery::parse_api_versions(boost::json::parse(
            R"({"kind":"APIVersions","versions":["v1"]})")) == std::vector<std::string>{"v1"});
  const auto groups = discovery::parse_group_list(boost::json::parse(R"({"kind":"APIGroupList",
    "groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
               "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
              {"name":"example.com","versions":[{"version":"v1"},{"version":"v2"}],
               "preferredVersion":{"version":"v2"}}]})"));
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].versions == std::vector<std::string>{"v1"});
  CHECK(groups[1].versions == std::vector<std::string>{"v2", "v1"});
  const auto resources = discovery::parse_resource_list(boost::json::parse(R"({
    "kind":"APIResourceList","groupVersion":"apps/v1","resources":[
      {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment",
       "verbs":["get"],"shortNames":["deploy"]},
      {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling",
       "version":"v1","kind":"Scale","verbs":["get"]}]})"),
                                                        "apps", "v1");
  REQUIRE(resources.size() == 1);
  CHECK(resources[0].group == "apps");
  CHECK(resources[0].kind == "Deployment");
  CHECK(resources[0].short_names == std::vector<std::string>{"deploy"});
}

TEST_CASE("malformed discovery documents fail naming the document and the field") {
  DiscoveryResult result;
  CHECK_THROWS_WITH_AS(discovery::parse_aggregated(boost::json::parse("[]"), result),
                       doctest::Contains("APIGroupDiscoveryList"), DiscoveryError);
  CHECK_THROWS_WITH_AS(
      discovery::parse_aggregated(boost::json::parse(R"({"kind":"APIGroupDiscoveryList",
        "items":[{"metadata":{"name":"g"},"versions":[{"version":"v1","resources":[
          {"resource":"things","scope":"Galaxy"}]}]}]})"),
                                  result),
      doctest::Contains("scope \"Galaxy\""), DiscoveryError);
  CHECK_THROWS_WITH_AS(
      discovery::parse_resource_list(boost::json::parse(R"({"resources":{}})"), "", "v1"),
      doctest::Contains("\"resources\" is not an array"), DiscoveryError);
}
