// The scheduler's filters: spec.nodeSelector (the nodeSelector half of NodeAffinity), with
// kube-scheduler's rejection message when no node matches; and that it still places pods on a
// node that looks Ready although its kubelet has died (it knows only what the API says).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <set>

#include "cluster_fixture.hpp"

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
