// The scheduler's filters: spec.nodeSelector (the nodeSelector half of NodeAffinity), with
// kube-scheduler's rejection message when no node matches; and that it still places pods on a
// node that looks Ready although its kubelet has died (it knows only what the API says); and
// how many nodes it looks at in a large cluster (percentageOfNodesToScore's adaptive default).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <map>
#include <set>

#include "cluster_fixture.hpp"
#include "sim/cluster/scheduler.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_field;
using rg::sim::testing::condition_status;
using rg::sim::testing::fast_options;
using rg::sim::testing::node_of;

namespace {

void select_nodes(ClusterFixture& f, const std::string& deployment, const std::string& key,
                  const std::string& value) {
  f.edit_deployment(deployment, [&](json::object& spec) {
    spec["template"].as_object()["spec"].as_object()["nodeSelector"] = json::object{{key, value}};
  });
}

}  // namespace

TEST_CASE("spec.nodeSelector pins pods to the nodes carrying its labels") {
  ClusterFixture f(fast_options(), 4);
  f.label_node("node-2", "group", "a");
  f.label_node("node-4", "group", "a");
  f.label_node("node-1", "group", "b");
  f.create_deployment("web", 1);
  select_nodes(f, "web", "group", "a");
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 4; });
  REQUIRE(f.run_until([&] {
    auto pods = f.pods_of("web");
    if (pods.size() != 4) return false;
    for (const auto& pod : pods)
      if (condition_status(pod, "Ready") != "True") return false;
    return true;
  }));
  std::set<std::string> nodes;
  for (const auto& pod : f.pods_of("web")) nodes.insert(node_of(pod));
  CHECK(nodes == std::set<std::string>{"node-2", "node-4"});
}

TEST_CASE("no node matching the nodeSelector: Unschedulable with kube-scheduler's reason") {
  ClusterFixture f(fast_options(), 3);
  f.label_node("node-3", "group", "b");
  f.create_deployment("web", 1);
  select_nodes(f, "web", "group", "a");
  REQUIRE(f.run_until([&] {
    for (const auto& pod : f.pods_of("web"))
      if (condition_field(pod, "PodScheduled", "reason") == "Unschedulable" &&
          condition_field(pod, "PodScheduled", "message").find("affinity") != std::string::npos)
        return true;
    return false;
  }));
  for (const auto& pod : f.pods_of("web")) {
    if (condition_field(pod, "PodScheduled", "reason") != "Unschedulable") continue;
    CHECK(condition_field(pod, "PodScheduled", "message") ==
          "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. no new "
          "claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful "
          "for scheduling.");
    CHECK(node_of(pod).empty());
  }
  // A node labelled to match makes the pending pod schedulable.
  f.label_node("node-1", "group", "a");
  REQUIRE(f.run_until([&] {
    auto pods = f.pods_of("web");
    return pods.size() == 1 && node_of(pods.front()) == "node-1" &&
           condition_status(pods.front(), "Ready") == "True";
  }));
}

TEST_CASE("a node whose kubelet died but is still Ready gets the new pod when least loaded") {
  auto options = fast_options();
  options.node_monitor_grace_period = std::chrono::seconds(300);  // stays Ready in the test
  ClusterFixture f(options, 3);
  f.create_deployment("web", 2);
  REQUIRE(f.run_until([&] {
    auto pods = f.pods_of("web");
    return pods.size() == 2 && condition_status(pods[0], "Ready") == "True" &&
           condition_status(pods[1], "Ready") == "True";
  }));
  std::set<std::string> used;
  for (const auto& pod : f.pods_of("web")) used.insert(node_of(pod));
  REQUIRE(used == std::set<std::string>{"node-1", "node-2"});

  f.cluster.stop_kubelet("node-3");
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 3; });
  REQUIRE(f.run_until([&] {
    for (const auto& pod : f.pods_of("web"))
      if (node_of(pod) == "node-3") return true;
    return false;
  }));
  CHECK(condition_status(f.get("", "nodes", "", "node-3"), "Ready") == "True");
  // Nobody starts it: the pod stays Pending on the dead node.
  for (const auto& pod : f.pods_of("web"))
    if (node_of(pod) == "node-3") {
      CHECK(pod.at("status").at("phase") == "Pending");
      CHECK(condition_status(pod, "Ready") != "True");
    }
}

TEST_CASE("a large cluster's scheduler stops at kube-scheduler's number of feasible nodes") {
  using rg::sim::cluster::num_feasible_nodes_to_find;
  CHECK(num_feasible_nodes_to_find(0) == 0);
  CHECK(num_feasible_nodes_to_find(3) == 3);
  CHECK(num_feasible_nodes_to_find(99) == 99);  // under 100: every node
  CHECK(num_feasible_nodes_to_find(100) == 100);
  CHECK(num_feasible_nodes_to_find(150) == 100);     // 49 % is 73: at least 100
  CHECK(num_feasible_nodes_to_find(1000) == 420);    // 50 - 1000/125 = 42 %
  CHECK(num_feasible_nodes_to_find(5000) == 500);    // 10 %
  CHECK(num_feasible_nodes_to_find(6000) == 300);    // 2 %, raised to 5 %
  CHECK(num_feasible_nodes_to_find(20000) == 1000);  // 5 %
}

TEST_CASE("in a cluster of 150 nodes each search starts where the last stopped: pods spread") {
  // fast_options' 1/1000 clock has 150 kubelets renew their Leases 15,000 times a second,
  // more than a sanitizer build can write: nodes would go NotReady, and the pods clump on the
  // rest. Placement needs no fast clock.
  ClusterFixture f(rg::sim::ClusterOptions{}.scaled(0.1), 150);
  // Pods created while most nodes are still waiting for their kubelet's first status would
  // all go to the few Ready ones.
  REQUIRE(f.run_until([&] { return f.nodes_ready(); }));
  f.create_deployment("web", 300);
  REQUIRE(f.run_until([&] {
    auto pods = f.pods_of("web");
    if (pods.size() != 300) return false;
    for (const auto& pod : pods)
      if (node_of(pod).empty()) return false;
    return true;
  }));
  std::map<std::string, int> per_node;
  for (const auto& pod : f.pods_of("web")) ++per_node[node_of(pod)];
  // Each search looks at 100 nodes from where the last one stopped and takes the least loaded
  // there: every node is used, none gets more than one pod above the even share.
  CHECK(per_node.size() == 150);
  for (const auto& [node, pods] : per_node) CHECK_MESSAGE(pods <= 3, node);
}

TEST_CASE("pending pods are retried only for a node change that may let them fit") {
  using rg::sim::cluster::NodeView;
  using rg::sim::cluster::Taint;
  auto node = [](std::string ready, bool unschedulable, std::vector<Taint> taints,
                 rg::client::Labels labels = {}) {
    auto object = std::make_shared<rg::sim::StoredObject>();
    object->name = "node-1";
    object->labels = std::move(labels);
    NodeView view;
    view.object = object;
    view.ready = std::move(ready);
    view.unschedulable = unschedulable;
    view.taints = std::move(taints);
    return view;
  };
  const Taint unreachable{"node.kubernetes.io/unreachable", "", "NoSchedule", ""};
  const NodeView ready = node("True", false, {});
  const NodeView unknown = node("Unknown", false, {unreachable});
  const NodeView cordoned = node("True", true, {});
  const NodeView tainted = node("True", false, {unreachable});
  using rg::sim::cluster::may_fit_more_pods;
  CHECK(may_fit_more_pods(nullptr, ready));                                     // a new node
  CHECK(may_fit_more_pods(&unknown, ready));                                    // back
  CHECK(may_fit_more_pods(&cordoned, ready));                                   // uncordoned
  CHECK(may_fit_more_pods(&tainted, ready));                                    // a taint gone
  CHECK(may_fit_more_pods(&ready, node("True", false, {}, {{"group", "a"}})));  // labels
  // A heartbeat (same view), a node turning NotReady, a cordon or a new taint fits no pod.
  CHECK_FALSE(may_fit_more_pods(&ready, ready));
  CHECK_FALSE(may_fit_more_pods(&ready, node("Unknown", false, {})));
  CHECK_FALSE(may_fit_more_pods(&ready, cordoned));
  CHECK_FALSE(may_fit_more_pods(&ready, unknown));
}
