// Tests of how requests are spelled: URL encoding, resource paths, option query strings and the
// DeleteOptions body.
#include <doctest/doctest.h>
#include <boost/json.hpp>

#include <stdexcept>

#include "client/rest/options.hpp"
#include "client/rest/query.hpp"
#include "client/rest/resource.hpp"

using namespace rg::client;

TEST_CASE("url_encode keeps unreserved characters and percent-encodes the rest") {
  CHECK(url_encode("abcXYZ019-._~") == "abcXYZ019-._~");
  CHECK(url_encode("app=web,tier!=db") == "app%3Dweb%2Ctier%21%3Ddb");
  CHECK(url_encode("a b+c/d?e&f#g%") == "a%20b%2Bc%2Fd%3Fe%26f%23g%25");
  CHECK(url_encode("env in (prod, stage)") == "env%20in%20%28prod%2C%20stage%29");
  CHECK(url_encode("\xc3\xa9") == "%C3%A9");
}

TEST_CASE("Query sorts keys like Go's url.Values and skips empty optional values") {
  Query query;
  query.set("watch", "true").set("allowWatchBookmarks", "true").set_if("resourceVersion", "");
  query.set("fieldSelector", "metadata.name=web");
  CHECK(query.str() == "?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dweb&watch=true");
  CHECK(Query().str().empty());
}

TEST_CASE("resource paths for core, grouped, cluster-scoped and subresources") {
  CHECK(resources::pods().in("default").path() == "/api/v1/namespaces/default/pods");
  CHECK(resources::pods().path() == "/api/v1/pods");  // all namespaces
  CHECK(resources::pods().in("kube-system").path("coredns-1") ==
        "/api/v1/namespaces/kube-system/pods/coredns-1");
  CHECK(resources::deployments().in("ns").sub("scale").path("web") ==
        "/apis/apps/v1/namespaces/ns/deployments/web/scale");
  CHECK(resources::pods().in("ns").sub("status").path("p") ==
        "/api/v1/namespaces/ns/pods/p/status");
  CHECK(resources::nodes().path() == "/api/v1/nodes");
  CHECK(resources::nodes().path("node-1") == "/api/v1/nodes/node-1");
  CHECK(resources::leases().in("kube-node-lease").path("n1") ==
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1");
  CHECK(resources::deployments().group_resource() == "deployments.apps");
  CHECK(resources::deployments().group_version() == "apps/v1");
  CHECK(resources::pods().group_version() == "v1");
}

TEST_CASE("incomplete or unsafe resource references are refused") {
  CHECK_THROWS_WITH_AS(resources::nodes().in("default").path(), doctest::Contains("cluster-scoped"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(resources::deployments().in("ns").sub("scale").path(),
                       doctest::Contains("needs a name"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(resources::pods().in("ns").path(".."), doctest::Contains("not a valid"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(resources::pods().in("a/b").path(), doctest::Contains("not a valid"),
                       std::invalid_argument);
  CHECK_THROWS_AS(ResourceRef{}.path(), std::invalid_argument);
}

TEST_CASE("list and watch options become the query strings client-go sends") {
  ListOptions list;
  list.limit = 500;
  list.resource_version = "0";
  CHECK(to_query(list).str() == "?limit=500&resourceVersion=0");

  list = {};
  list.label_selector = "app=web";
  list.field_selector = "spec.nodeName=node-1";
  list.continue_ = "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ";
  list.resource_version_match = "NotOlderThan";
  list.resource_version = "12";
  list.timeout_seconds = 30;
  CHECK(to_query(list).str() ==
        "?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ&fieldSelector=spec.nodeName%3Dnode-1&"
        "labelSelector=app%3Dweb&resourceVersion=12&resourceVersionMatch=NotOlderThan&"
        "timeoutSeconds=30");

  // The exact watch-list request kubectl 1.35 sends (api-wire-facts section 10).
  WatchOptions watch;
  watch.allow_watch_bookmarks = true;
  watch.field_selector = "metadata.name=web";
  watch.resource_version_match = std::string(resource_version_match::kNotOlderThan);
  watch.send_initial_events = true;
  watch.timeout_seconds = 344;
  CHECK(to_query(watch).str() ==
        "?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dweb&resourceVersionMatch="
        "NotOlderThan&sendInitialEvents=true&timeoutSeconds=344&watch=true");
}

TEST_CASE("write and patch options") {
  WriteOptions write;
  write.field_manager = "replica-guard";
  write.field_validation = std::string(field_validation::kStrict);
  write.dry_run = true;
  CHECK(to_query(write).str() == "?dryRun=All&fieldManager=replica-guard&fieldValidation=Strict");

  PatchOptions apply;
  apply.field_manager = "kubectl";
  apply.force = false;
  CHECK(to_query(apply, PatchType::kApply).str() == "?fieldManager=kubectl&force=false");
  CHECK(to_query(PatchOptions{}, PatchType::kMerge).str().empty());

  CHECK_THROWS_WITH_AS(to_query(PatchOptions{}, PatchType::kApply),
                       doctest::Contains("field_manager"), std::invalid_argument);
  PatchOptions forced;
  forced.force = true;
  CHECK_THROWS_WITH_AS(to_query(forced, PatchType::kMerge), doctest::Contains("force"),
                       std::invalid_argument);

  CHECK(content_type(PatchType::kJson) == "application/json-patch+json");
  CHECK(content_type(PatchType::kMerge) == "application/merge-patch+json");
  CHECK(content_type(PatchType::kStrategicMerge) == "application/strategic-merge-patch+json");
  CHECK(content_type(PatchType::kApply) == "application/apply-patch+yaml");
}

TEST_CASE("delete options are sent as a DeleteOptions body") {
  CHECK(delete_body({}).empty());
  DeleteOptions options;
  options.propagation_policy = std::string(propagation::kBackground);
  CHECK(delete_body(options) ==
        R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})");
  options.preconditions = {"uid-1", "42"};
  options.grace_period_seconds = 0;
  options.dry_run = true;
  const auto body = boost::json::parse(delete_body(options)).as_object();
  CHECK(body.at("gracePeriodSeconds") == 0);
  CHECK(body.at("preconditions") ==
        boost::json::parse(R"({"uid":"uid-1","resourceVersion":"42"})"));
  CHECK(body.at("dryRun") == boost::json::parse(R"(["All"])"));
}
