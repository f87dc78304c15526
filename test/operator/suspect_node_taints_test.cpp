// The taint policy rule by rule (plan_suspect_taints) and its JSON patch (suspect_taint_patch):
// which nodes carry replica-guard.io/suspect:NoSchedule, and that a write never drops another
// controller's taint.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "operator/suspect_node_taints.hpp"

namespace rg::op {
namespace {

namespace json = boost::json;

const std::vector<NodeTaintFacts> kNodes = {
    {.name = "suspect", .suspect = true, .tainted = false},
    {.name = "suspect-tainted", .suspect = true, .tainted = true},
    {.name = "renewed-tainted", .suspect = false, .tainted = true},
    {.name = "healthy", .suspect = false, .tainted = false},
};

TEST_CASE("flag on: suspects gain the taint, nodes no longer suspect lose it") {
  CHECK(plan_suspect_taints(kNodes, {.enabled = true}) ==
        std::vector<TaintChange>{{"suspect", true}, {"renewed-tainted", false}});
}

TEST_CASE("flag off: no new taint, and every stale one goes") {
  CHECK(plan_suspect_taints(kNodes, {.enabled = false}) ==
        std::vector<TaintChange>{{"suspect-tainted", false}, {"renewed-tainted", false}});
}

TEST_CASE("surges suppressed (likely a partition): no new taint, and existing ones go") {
  CHECK(plan_suspect_taints(kNodes, {.enabled = true, .surges_suppressed = true}) ==
        std::vector<TaintChange>{{"suspect-tainted", false}, {"renewed-tainted", false}});
}

TEST_CASE("warm-up (no suspect yet after start or leadership): every stale taint goes") {
  const std::vector<NodeTaintFacts> warming = {{.name = "a", .suspect = false, .tainted = true},
                                               {.name = "b", .suspect = false, .tainted = false}};
  CHECK(plan_suspect_taints(warming, {.enabled = true}) == std::vector<TaintChange>{{"a", false}});
}

TEST_CASE("a settled cluster needs no write") {
  const std::vector<NodeTaintFacts> settled = {{.name = "a", .suspect = true, .tainted = true},
                                               {.name = "b", .suspect = false, .tainted = false}};
  CHECK(plan_suspect_taints(settled, {.enabled = true}).empty());
}

json::value node_with(const char* taints) {
  return json::parse(std::string(R"({"metadata":{"name":"n","resourceVersion":"42"},"spec":{)") +
                     taints + "}}");
}

TEST_CASE("the patch adds the taint after the others, guarded by the resourceVersion read") {
  const auto node = node_with(
      R"("taints":[{"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"t0","extra":1}])");
  const auto patch = suspect_taint_patch(node, true, "2026-12-01T15:00:00Z");
  REQUIRE(patch);
  CHECK(*patch == json::parse(R"([
    {"op":"test","path":"/metadata/resourceVersion","value":"42"},
    {"op":"add","path":"/spec/taints","value":[
      {"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"t0","extra":1},
      {"key":"replica-guard.io/suspect","effect":"NoSchedule","timeAdded":"2026-12-01T15:00:00Z"}]}])"));
}

TEST_CASE("the patch adds the taint to a node without taints") {
  const auto patch = suspect_taint_patch(node_with(""), true, "t");
  REQUIRE(patch);
  CHECK(
      patch->at(1).at("value") ==
      json::parse(R"([{"key":"replica-guard.io/suspect","effect":"NoSchedule","timeAdded":"t"}])"));
}

TEST_CASE("the removal keeps every other taint as it is") {
  const auto node = node_with(
      R"("taints":[{"key":"a","effect":"NoSchedule"},{"key":"replica-guard.io/suspect","effect":"NoSchedule"},{"key":"b","value":"v","effect":"NoExecute"}])");
  const auto patch = suspect_taint_patch(node, false, "");
  REQUIRE(patch);
  CHECK(patch->at(0).at("op") == "test");
  CHECK(patch->at(1).at("value") ==
        json::parse(
            R"([{"key":"a","effect":"NoSchedule"},{"key":"b","value":"v","effect":"NoExecute"}])"));
}

TEST_CASE("nothing to change: no patch") {
  CHECK_FALSE(
      suspect_taint_patch(node_with(R"("taints":[{"key":"a","effect":"NoSchedule"}])"), false, ""));
  CHECK_FALSE(suspect_taint_patch(
      node_with(R"("taints":[{"key":"replica-guard.io/suspect","effect":"NoSchedule"}])"), true,
      "t"));
}

TEST_CASE("has_suspect_taint looks at the key") {
  client::Node node;
  CHECK_FALSE(has_suspect_taint(node));
  node.spec.taints.push_back(
      {.key = "other", .value = "", .effect = "NoSchedule", .time_added = {}});
  CHECK_FALSE(has_suspect_taint(node));
  node.spec.taints.push_back(
      {.key = "replica-guard.io/suspect", .value = "", .effect = "NoSchedule", .time_added = {}});
  CHECK(has_suspect_taint(node));
}

}  // namespace
}  // namespace rg::op
