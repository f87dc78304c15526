// --taint-suspect-nodes end to end against kube-sim, Kubernetes' timings scaled by 1/10 (Lease
// renewals every second, --node-lease-grace 2.4 s) and the node lifecycle controller slowed down,
// so that the taint is the Lease signal's alone: a stopped kubelet's node is tainted
// replica-guard.io/suspect:NoSchedule while it still says Ready, kube-sim's scheduler (which
// honours NoSchedule) then places no new pod there, and the taint goes when the Lease renews. And
// the stale taints a previous run left: removed at start, on gaining leadership and with the flag
// off; --dry-run only says what it would do.
#include <doctest/doctest.h>

#include <set>

#include "operator/suspect_node_taints.hpp"
#include "test/operator_e2e/operator_fixture.hpp"

namespace rg::op::testing {
namespace {

namespace json = boost::json;

Options taint_options(bool taint) {
  Options options = suspect_node_options();
  options.taint_suspect_nodes = taint;
  return options;
}

json::array taints_of(const OperatorFixture& f, const std::string& node) {
  const json::object object = f.cluster.get("", "nodes", "", node);
  const auto* spec = object.if_contains("spec");
  const auto* taints =
      spec && spec->is_object() ? spec->as_object().if_contains("taints") : nullptr;
  return taints && taints->is_array() ? taints->as_array() : json::array{};
}

bool tainted(const OperatorFixture& f, const std::string& node) {
  for (const auto& taint : taints_of(f, node)) {
    if (taint.at("key").as_string() == kSuspectTaintKey) return true;
  }
  return false;
}

// Adds a taint to `node` as a person (or a run before this one) would.
void add_taint(OperatorFixture& f, const std::string& node, std::string_view key) {
  f.cluster.registry.update(f.cluster.type("", "nodes"), "", node, "",
                            [&](json::object view) {
                              auto& spec = view["spec"].as_object();
                              auto& slot = spec["taints"];
                              if (!slot.is_array()) slot.emplace_array();
                              slot.as_array().push_back({{"key", key}, {"effect", "NoSchedule"}});
                              view["metadata"].as_object().erase("resourceVersion");
                              return view;
                            },
                            {"kubectl"});
}

std::vector<std::string> node_names(const OperatorFixture& f) {
  std::vector<std::string> names;
  for (const auto& node : f.cluster.list("", "nodes"))
    names.emplace_back(node.at("metadata").as_object().at("name").as_string());
  return names;
}

// The pods of `app` bound to `node`, by name.
std::set<std::string> pod_names_on(const OperatorFixture& f, const std::string& app,
                                   const std::string& node) {
  std::set<std::string> names;
  for (const auto& pod : f.cluster.list("", "pods", "default")) {
    const auto& meta = pod.at("metadata").as_object();
    const auto* labels = meta.if_contains("labels");
    const auto* label =
        labels && labels->is_object() ? labels->as_object().if_contains("app") : nullptr;
    if (!label || label->as_string() != app) continue;
    const auto* bound = pod.at("spec").as_object().if_contains("nodeName");
    if (bound && bound->is_string() && bound->as_string() == node)
      names.emplace(meta.at("name").as_string());
  }
  return names;
}

}  // namespace

TEST_CASE("a suspect node is tainted, gets no new pod, and is untainted when its Lease renews") {
  OperatorFixture f(4, suspect_node_cluster_options());
  f.start_operator(taint_options(true));
  guard_and_settle(f, "web", 8, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.fail_busiest_node("web");
  const std::set<std::string> there = pod_names_on(f, "web", failed.node);
  bool ready_when_tainted = false;
  CHECK(f.run_until([&] {
    ready_when_tainted = f.node_ready(failed.node);
    return tainted(f, failed.node);
  }));
  CHECK_MESSAGE(ready_when_tainted, "the node was NotReady before it was tainted");
  CHECK(f.run_until([&] { return f.has_event(failed.node, "SuspectNodeTainted"); }));
  CHECK(f.event_message(failed.node, "SuspectNodeTainted").find("no Lease renewal observed") !=
        std::string::npos);
  // Other taints are left alone, and only the suspect node is tainted.
  for (const std::string& node : node_names(f)) {
    if (node != failed.node) CHECK_FALSE(tainted(f, node));
  }

  // Nothing new lands on the dead node, which still looks Ready and is the least loaded: not the
  // surge (the taint is written before the Deployment is reconciled), not the 12 pods of a new
  // Deployment (without the taint, the scheduler puts some of those there).
  CHECK(f.run_until([&] { return f.spec_replicas("web") >= 8 + failed.pods; }));
  CHECK(f.run_until([&] { return f.ready_pods("web") >= 8; }));
  f.cluster.create_deployment("probe", 12);
  CHECK(f.run_until([&] {
    std::size_t bound = 0;
    for (const std::string& node : node_names(f)) bound += pod_names_on(f, "probe", node).size();
    return bound == 12;
  }));
  CHECK(pod_names_on(f, "probe", failed.node).empty());
  CHECK(pod_names_on(f, "web", failed.node) == there);

  // The kubelet is back: its Lease renews, the taint goes.
  f.cluster.stop_kubelet(failed.node, false);
  CHECK(f.run_until([&] { return !tainted(f, failed.node); }));
  CHECK(f.run_until([&] { return f.has_event(failed.node, "SuspectNodeUntainted"); }));
}

TEST_CASE("the taint never drops a taint another controller holds") {
  OperatorFixture f(4, suspect_node_cluster_options());
  const std::string node = node_names(f).front();
  add_taint(f, node, "example.com/maintenance");
  add_taint(f, node, kSuspectTaintKey);  // stale, from a previous run
  f.start_operator(taint_options(true));
  CHECK(f.run_until([&] { return !tainted(f, node); }));
  const auto left = taints_of(f, node);
  REQUIRE(left.size() == 1);
  CHECK(left.front().at("key").as_string() == "example.com/maintenance");
}

TEST_CASE("stale taints go at start, also with the flag off") {
  OperatorFixture f(3, suspect_node_cluster_options());
  const auto nodes = node_names(f);
  for (const auto& node : nodes) add_taint(f, node, kSuspectTaintKey);
  bool flag = true;
  SUBCASE("flag on") { flag = true; }
  SUBCASE("flag off") { flag = false; }
  CAPTURE(flag);
  f.start_operator(taint_options(flag));
  CHECK(f.run_until([&] {
    return std::none_of(nodes.begin(), nodes.end(),
                        [&](const std::string& node) { return tainted(f, node); });
  }));
}

TEST_CASE("a new leader removes the taints its predecessor left") {
  OperatorFixture f(3, suspect_node_cluster_options());
  const Options options = with_leader_election(taint_options(false));
  auto& first = f.start_operator(options);
  const auto holder = [&] { return f.leader(); };
  REQUIRE(f.run_until([&] { return !holder().empty(); }));
  REQUIRE(holder() == first.manager->identity());
  auto& second = f.start_operator(options);
  // The leader made its one pass (the flag is off); a taint left after it stays until the next
  // leadership.
  guard_and_settle(f, "web", 3);
  const std::string node = node_names(f).front();
  add_taint(f, node, kSuspectTaintKey);
  CHECK_FALSE(f.run_until([&] { return !tainted(f, node); }, std::chrono::seconds(2)));
  f.stop_operator(first);
  CHECK(f.run_until([&] { return holder() == second.manager->identity(); }));
  CHECK(f.run_until([&] { return !tainted(f, node); }));
}

TEST_CASE("--dry-run: the suspect node is not tainted, an Event says it would be") {
  OperatorFixture f(4, suspect_node_cluster_options());
  Options options = taint_options(true);
  options.dry_run = true;
  f.start_operator(options);
  f.create_guarded_deployment("web", 8);  // dry-run records no annotation: no guard_and_settle
  REQUIRE(f.run_until([&] { return f.ready_pods("web") == 8; }));
  const auto failed = f.fail_busiest_node("web");
  CHECK(f.run_until([&] { return f.has_event(failed.node, "SuspectNodeTainted"); }));
  CHECK(f.event_message(failed.node, "SuspectNodeTainted").find("dry-run, not done") !=
        std::string::npos);
  CHECK_FALSE(tainted(f, failed.node));
  // Said once, not at every pass.
  CHECK_FALSE(f.run_until([&] { return f.event_count(failed.node, "SuspectNodeTainted") > 1; },
                          std::chrono::seconds(2)));
}

TEST_CASE("surges suppressed: suspect nodes are not tainted") {
  OperatorFixture f(5, suspect_node_cluster_options());
  Options options = taint_options(true);
  options.max_unhealthy_node_fraction = 0.1;  // one unhealthy node of five is already too many
  f.start_operator(options);
  guard_and_settle(f, "web", 10, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.fail_busiest_node("web");
  CHECK(f.run_until([&] { return f.has_event("web", "SurgeSuppressed"); }));
  CHECK_FALSE(f.run_until([&] { return tainted(f, failed.node); }, std::chrono::seconds(3)));
}

}  // namespace rg::op::testing
