// Node failure, as replica-guard sees it: a stopped kubelet, the node Unknown after the grace
// period and tainted, its pods NotReady but still counted by their ReplicaSet until the
// taint-eviction timeout deletes them and they are replaced; then the kubelet comes back.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "cluster_fixture.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_field;
using rg::sim::testing::condition_status;
using rg::sim::testing::fast_options;
using rg::sim::testing::status_int;

namespace {

std::vector<json::object> pods_on(ClusterFixture& f, const std::string& node) {
  std::vector<json::object> out;
  for (auto& pod : f.pods_of("web")) {
    const auto* name = pod.at("spec").as_object().if_contains("nodeName");  // absent: unscheduled
    if (name != nullptr && name->as_string() == node) out.push_back(std::move(pod));
  }
  return out;
}

bool has_taint(const json::object& node, std::string_view key, std::string_view effect) {
  const auto* taints = node.at("spec").as_object().if_contains("taints");
  if (taints == nullptr) return false;
  for (const auto& taint : taints->as_array())
    if (taint.at("key").as_string() == key && taint.at("effect").as_string() == effect &&
        taint.as_object().contains("timeAdded"))
      return true;
  return false;
}

json::object replica_set(ClusterFixture& f) {
  auto items = f.list("apps", "replicasets", "default");
  return items.empty() ? json::object() : items.front();
}

}  // namespace

TEST_CASE("a stopped kubelet: Unknown, tainted, pods NotReady yet counted, evicted, replaced") {
  ClusterFixture f;
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 3); }));
  REQUIRE(pods_on(f, "node-1").size() == 1);
  const auto stranded_uid = pods_on(f, "node-1").front().at("metadata").at("uid");

  f.stop_kubelet("node-1", true);
  REQUIRE(f.run_until([&] {
    auto node = f.get("", "nodes", "", "node-1");
    auto pods = pods_on(f, "node-1");
    return condition_status(node, "Ready") == "Unknown" &&
           has_taint(node, "node.kubernetes.io/unreachable", "NoExecute") && pods.size() == 1 &&
           condition_status(pods.front(), "Ready") == "False";
  }));
  auto node = f.get("", "nodes", "", "node-1");
  CHECK(condition_field(node, "Ready", "reason") == "NodeStatusUnknown");
  CHECK(condition_field(node, "Ready", "message") == "Kubelet stopped posting node status.");
  for (auto type : {"MemoryPressure", "DiskPressure", "PIDPressure"})
    CHECK(condition_status(node, type) == "Unknown");
  CHECK(has_taint(node, "node.kubernetes.io/unreachable", "NoSchedule"));

  // The gap: the stranded pod is NotReady but still active, so the ReplicaSet does not replace
  // it -- status.replicas stays 3 while only 2 are ready.
  // (The deployment controller writes its status after the ReplicaSet's: wait for both.)
  REQUIRE(f.run_until([&] {
    return status_int(replica_set(f), "readyReplicas") == 2 &&
           status_int(f.get("apps", "deployments", "default", "web"), "availableReplicas") == 2;
  }));
  CHECK(status_int(replica_set(f), "replicas") == 3);
  CHECK(f.pods_of("web").size() == 3);
  CHECK(pods_on(f, "node-1").front().at("metadata").at("uid") == stranded_uid);
  auto deployment = f.get("apps", "deployments", "default", "web");
  CHECK(status_int(deployment, "unavailableReplicas") == 1);

  // After the eviction timeout the pod is deleted and replaced on a healthy node.
  REQUIRE(f.run_until([&] { return pods_on(f, "node-1").empty() && f.all_ready("web", 3); }));
  for (const auto& pod : f.pods_of("web")) CHECK(pod.at("metadata").at("uid") != stranded_uid);

  // The kubelet comes back: Ready again, taints gone.
  f.stop_kubelet("node-1", false);
  REQUIRE(f.run_until([&] {
    auto node = f.get("", "nodes", "", "node-1");
    return condition_status(node, "Ready") == "True" &&
           !node.at("spec").as_object().contains("taints");
  }));
  CHECK(condition_field(f.get("", "nodes", "", "node-1"), "Ready", "reason") == "KubeletReady");
}

TEST_CASE("a kubelet back before the eviction timeout keeps its pods, Ready again") {
  auto options = fast_options();
  options.pod_eviction_timeout = std::chrono::seconds(300);  // no eviction during the test
  ClusterFixture f(options);
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 3); }));
  const auto uid = pods_on(f, "node-2").front().at("metadata").at("uid");

  f.stop_kubelet("node-2", true);
  REQUIRE(f.run_until([&] {
    auto pods = pods_on(f, "node-2");
    return pods.size() == 1 && condition_status(pods.front(), "Ready") == "False";
  }));
  f.stop_kubelet("node-2", false);
  REQUIRE(f.run_until([&] {
    auto node = f.get("", "nodes", "", "node-2");
    auto pods = pods_on(f, "node-2");
    return condition_status(node, "Ready") == "True" &&
           !node.at("spec").as_object().contains("taints") && pods.size() == 1 &&
           condition_status(pods.front(), "Ready") == "True";
  }));
  CHECK(pods_on(f, "node-2").front().at("metadata").at("uid") == uid);
  CHECK(f.pods_of("web").size() == 3);
}

TEST_CASE("a node created through the API gets a kubelet; pending pods wait for a node") {
  ClusterFixture f(fast_options(), 0);
  f.create_deployment("web", 2);
  REQUIRE(f.run_until([&] {
    auto pods = f.pods_of("web");
    return pods.size() == 2 &&
           condition_field(pods.front(), "PodScheduled", "reason") == "Unschedulable";
  }));
  f.registry.create(
      f.type("", "nodes"), "",
      json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "late-node"}}}},
      {"kubectl"});
  REQUIRE(f.run_until([&] { return f.all_ready("web", 2); }));
  auto node = f.get("", "nodes", "", "late-node");
  CHECK(condition_status(node, "Ready") == "True");
  CHECK(node.at("status").at("nodeInfo").at("kubeletVersion") == "v1.35.0");
}
