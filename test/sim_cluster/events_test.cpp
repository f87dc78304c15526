// The simulated components' Events: each through its API group and recorder (the scheduler's
// events.k8s.io/v1 series, everyone else's core/v1 with client-go's correlator), with upstream's
// reasons, messages and sources, in the order a cluster's story happens; and none when turned
// off.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cluster_fixture.hpp"
#include "sim/cluster/kubelet_events.hpp"
#include "sim/resource_table.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_status;
using rg::sim::testing::fast_options;
using rg::sim::testing::node_of;

namespace {

std::string text(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

// Stored Events (core/v1) with `reason`, about objects whose name starts with `prefix`.
std::vector<json::object> events(ClusterFixture& f, std::string_view reason,
                                 std::string_view prefix = "") {
  std::vector<json::object> out;
  for (auto& event : f.list("", "events"))
    if (text(event, "reason") == reason &&
        text(event.at("involvedObject").as_object(), "name").starts_with(prefix))
      out.push_back(std::move(event));
  return out;
}

std::string source_of(const json::object& event) {
  const auto* source = event.if_contains("source");
  const std::string component =
      source != nullptr ? text(source->as_object(), "component") : std::string();
  return component.empty() ? text(event, "reportingComponent") : component;
}

// Deploys "web" with three Ready pods (one per node) and names the one on node-1.
std::string deploy_three(ClusterFixture& f) {
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 3); }));
  std::string on_node_1;
  for (const auto& pod : f.pods_of("web"))
    if (node_of(pod) == "node-1") on_node_1 = pod.at("metadata").at("name").as_string();
  REQUIRE(!on_node_1.empty());
  return on_node_1;
}

void set_node_selector(ClusterFixture& f, const std::string& key, const std::string& value) {
  f.edit_deployment("web", [&](json::object& spec) {
    spec["template"].as_object()["spec"].as_object()["nodeSelector"] = json::object{{key, value}};
  });
}

}  // namespace

TEST_CASE("time.Duration strings as the kubelet's Pulled message prints them") {
  using std::chrono::milliseconds;
  CHECK(rg::sim::cluster::go_duration(milliseconds(0)) == "0s");
  CHECK(rg::sim::cluster::go_duration(milliseconds(2)) == "2ms");
  CHECK(rg::sim::cluster::go_duration(milliseconds(2000)) == "2s");
  CHECK(rg::sim::cluster::go_duration(milliseconds(1500)) == "1.5s");
  CHECK(rg::sim::cluster::go_duration(milliseconds(61'250)) == "1m1.25s");
  CHECK(rg::sim::cluster::go_duration(milliseconds(3'600'000)) == "1h0m0s");
}

TEST_CASE("a Deployment's story: ScalingReplicaSet, SuccessfulCreate, Scheduled, the kubelet's") {
  ClusterFixture f(fast_options(), 3);
  f.create_deployment("web", 2, "nginx:1.27");
  REQUIRE(f.run_until([&] { return f.all_ready("web", 2) && events(f, "Started").size() == 2; }));

  const auto scaling = events(f, "ScalingReplicaSet");
  REQUIRE(scaling.size() == 1);
  CHECK(source_of(scaling[0]) == "deployment-controller");
  CHECK(scaling[0].at("involvedObject").at("kind") == "Deployment");
  CHECK(text(scaling[0], "message").starts_with("Scaled up replica set web-"));
  CHECK(text(scaling[0], "message").ends_with(" from 0 to 2"));

  const auto created = events(f, "SuccessfulCreate");
  REQUIRE(created.size() == 2);
  for (const auto& event : created) {
    CHECK(source_of(event) == "replicaset-controller");
    CHECK(event.at("involvedObject").at("kind") == "ReplicaSet");
    CHECK(text(event, "message").starts_with("Created pod: web-"));
  }

  for (const auto& pod : f.pods_of("web")) {
    const std::string name(pod.at("metadata").at("name").as_string());
    // The scheduler's Event, written through events.k8s.io/v1 and stored as core/v1.
    const auto scheduled = events(f, "Scheduled", name);
    REQUIRE(scheduled.size() == 1);
    const auto& event = scheduled[0];
    CHECK(event.at("reportingComponent") == "default-scheduler");
    CHECK(event.at("reportingInstance") == "default-scheduler-kube-sim");
    CHECK(event.at("action") == "Binding");
    CHECK(text(event, "message") ==
          "Successfully assigned default/" + name + " to " + node_of(pod));
    CHECK(event.at("eventTime").is_string());
    CHECK(event.at("firstTimestamp").is_null());
    CHECK(!event.contains("count"));
    CHECK(event.at("source").as_object().empty());
    // Read back through events.k8s.io/v1: regarding and note.
    const auto& new_events =
        *rg::sim::ResourceTable::builtin().find("events.k8s.io", "v1", "events");
    auto stored =
        f.store.get(new_events, "default", text(event.at("metadata").as_object(), "name"));
    REQUIRE(stored != nullptr);

    // The kubelet's, per container (fieldPath), in order: Pulling/Pulled, Created, Started.
    std::vector<std::string> reasons;
    for (const auto& e : f.list("", "events")) {
      const auto& involved = e.at("involvedObject").as_object();
      if (text(involved, "name") != name || source_of(e) != "kubelet") continue;
      CHECK(text(involved, "fieldPath") == "spec.containers{web}");
      CHECK(text(e.at("source").as_object(), "host") == node_of(pod));
      reasons.push_back(text(e, "reason"));
    }
    CHECK(reasons.size() >= 4);
    CHECK(reasons.back() == "Started");
  }
  // The first pod on a node pulls; IfNotPresent pulls once per node.
  const auto pulled = events(f, "Pulled");
  CHECK(pulled.size() == 2);
  for (const auto& event : pulled)
    CHECK(text(event, "message").starts_with("Successfully pulled image \"nginx:1.27\" in "));
  CHECK(events(f, "Pulling").size() == 2);
  // Each kubelet announced its start on its node (uid = the node's name).
  const auto starting = events(f, "Starting");
  CHECK(starting.size() == 3);
  for (const auto& event : starting)
    CHECK(event.at("involvedObject").at("uid") == event.at("involvedObject").at("name"));
  CHECK(events(f, "NodeHasSufficientMemory").size() == 3);
  CHECK(events(f, "RegisteredNode").size() == 3);

  // Scaling down: ScalingReplicaSet down, SuccessfulDelete, the kubelet's Killing.
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 1; });
  REQUIRE(f.run_until([&] {
    return events(f, "SuccessfulDelete").size() == 1 && events(f, "Killing").size() == 1;
  }));
  CHECK(text(events(f, "Killing")[0], "message") == "Stopping container web");
  CHECK(events(f, "ScalingReplicaSet").size() == 2);
}

TEST_CASE("the ReplicaSet's 10th distinct Created message is combined, later ones count on it") {
  ClusterFixture f(fast_options(), 3);
  f.create_deployment("web", 12);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 12); }));
  const auto created = events(f, "SuccessfulCreate");
  REQUIRE(created.size() == 10);
  int combined = 0;
  for (const auto& event : created) {
    if (!text(event, "message").starts_with("(combined from similar events): Created pod: web-"))
      continue;
    ++combined;
    CHECK(event.at("count") == 3);  // the 10th, 11th and 12th
    CHECK(event.at("firstTimestamp") != nullptr);
  }
  CHECK(combined == 1);
}

TEST_CASE("FailedScheduling retries are one events.k8s.io series per pod version") {
  auto options = fast_options();
  // No periodic node status writes: the pod is retried only when the test changes a node.
  options.node_status_report_frequency = std::chrono::hours(1);
  // Nodes stay Ready whatever the machine's load: a stall longer than the scaled grace period
  // (50 ms) would turn them Unknown and back, and each of those changes the pod's condition
  // message (a new pod version, a new series) or retries it (a Ready node may fit it).
  options.node_monitor_grace_period = std::chrono::hours(1);
  // A series ends 3 s after its last retry (6 min in a cluster; 360 ms at fast_options' scale,
  // which a loaded machine can spend between two steps of this test, starting a second series).
  options.event_series_finish = std::chrono::seconds(3);
  ClusterFixture f(options, 3);
  f.create_deployment("web", 1);
  set_node_selector(f, "group", "none");
  REQUIRE(f.run_until([&] { return !events(f, "FailedScheduling").empty(); }));
  const auto first = events(f, "FailedScheduling")[0];
  CHECK(first.at("type") == "Warning");
  CHECK(first.at("action") == "Scheduling");
  CHECK(first.at("reportingComponent") == "default-scheduler");
  CHECK(text(first, "message") ==
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. no new "
        "claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful "
        "for scheduling.");
  // Every node change retries the pod. The first failure's condition gave the pod a new
  // resourceVersion (part of the isomorphic key), so the retries after it are one series.
  auto series_count = [&] {
    std::int64_t count = 0;
    for (const auto& event : events(f, "FailedScheduling"))
      if (const auto* series = event.if_contains("series"))
        count = std::max(count, series->at("count").as_int64());
    return count;
  };
  f.label_node("node-1", "other", "1");
  REQUIRE(f.run_until([&] { return series_count() >= 2; }));
  CHECK(events(f, "FailedScheduling").size() <= 2);
  // A later retry is counted by the recorder and written when the series finishes (6 minutes
  // without a retry, 3 s here).
  f.label_node("node-2", "other", "1");
  REQUIRE(f.run_until([&] { return series_count() >= 3; }));
  CHECK(events(f, "FailedScheduling").size() <= 2);
}

TEST_CASE("a node's death: NodeNotReady, TaintManagerEviction, the replacement; NodeReady back") {
  auto options = fast_options();
  // Only node-1's death turns a node NotReady: a stall of the machine longer than the scaled
  // grace period (50 ms) would flap a live node (NodeNotReady, then "Cancelling deletion").
  options.node_monitor_grace_period = std::chrono::seconds(1);
  ClusterFixture f(options, 3);
  const std::string stranded = deploy_three(f);

  f.cluster.stop_kubelet("node-1");
  REQUIRE(f.run_until([&] { return events(f, "TaintManagerEviction", stranded).size() == 1; }));
  const auto eviction = events(f, "TaintManagerEviction", stranded)[0];
  CHECK(source_of(eviction) == "taint-eviction-controller");
  CHECK(text(eviction, "message") == "Marking for deletion Pod default/" + stranded);
  CHECK(!eviction.at("involvedObject").as_object().contains("uid"));
  CHECK(events(f, "NodeNotReady", "node-1").size() == 1);
  CHECK(events(f, "NodeNotReady", stranded).size() == 1);
  CHECK(events(f, "Killing").empty());  // its kubelet is dead
  REQUIRE(f.run_until([&] { return events(f, "SuccessfulCreate").size() == 4; }));

  f.cluster.start_kubelet("node-1");
  REQUIRE(f.run_until([&] { return events(f, "NodeReady", "node-1").size() == 1; }));
  const auto ready = events(f, "NodeReady", "node-1")[0];
  CHECK(source_of(ready) == "kubelet");
  CHECK(text(ready, "message") == "Node node-1 status is now: NodeReady");
  CHECK(events(f, "Starting", "node-1").size() == 2);  // a restarted kubelet is a new process
}

TEST_CASE("a timed eviction called off by the node's return: Cancelling deletion of Pod") {
  auto options = fast_options();
  options.pod_eviction_timeout = std::chrono::seconds(60);  // no timed eviction within the test
  ClusterFixture f(options, 3);
  const std::string stranded = deploy_three(f);
  // A pod on node-1 that tolerates the unreachable taint for 0 s: the controller's sync of
  // node-1 that schedules `stranded`'s eviction evicts it at once, so its Event says the sync
  // ran. Without it, a node back before that sync leaves nothing to cancel (as upstream).
  const json::object no_wait{{"key", "node.kubernetes.io/unreachable"},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", 0}};
  f.registry.create(
      f.type("", "pods"), "default",
      json::object{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", {{"name", "sentinel"}}},
                   {"spec",
                    {{"nodeName", "node-1"},
                     {"tolerations", json::array{no_wait}},
                     {"containers", json::array{{{"name", "c"}, {"image", "busybox"}}}}}}},
      {"kubectl"});
  REQUIRE(f.run_until([&] {
    return condition_status(f.get("", "pods", "default", "sentinel"), "Ready") == "True";
  }));
  f.cluster.stop_kubelet("node-1");
  REQUIRE(f.run_until([&] { return events(f, "TaintManagerEviction", "sentinel").size() == 1; }));
  CHECK(text(events(f, "TaintManagerEviction", "sentinel")[0], "message") ==
        "Marking for deletion Pod default/sentinel");
  CHECK(events(f, "TaintManagerEviction", stranded).empty());  // its eviction is timed
  f.cluster.start_kubelet("node-1");
  REQUIRE(f.run_until([&] { return events(f, "TaintManagerEviction", stranded).size() == 1; }));
  CHECK(text(events(f, "TaintManagerEviction", stranded)[0], "message") ==
        "Cancelling deletion of Pod default/" + stranded);
  // The node's NoExecute taint is gone. Waited for: at this 1/1000 clock a loaded machine can
  // make the returned kubelet miss its 50 ms grace once more, and the node is tainted again
  // until its next renewal.
  CHECK(f.run_until([&] {
    const auto node = f.get("", "nodes", "", "node-1");
    const auto* taints = node.at("spec").as_object().if_contains("taints");
    if (taints != nullptr)
      for (const auto& taint : taints->as_array())
        if (taint.at("effect") == "NoExecute") return false;
    return true;
  }));
}

TEST_CASE("record_events off: the components write no Events") {
  auto options = fast_options();
  options.record_events = false;
  ClusterFixture f(options, 3);
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 3); }));
  f.cluster.stop_kubelet("node-1");
  REQUIRE(f.run_until([&] {
    for (const auto& pod : f.pods_of("web"))
      if (node_of(pod) == "node-1") return false;
    return f.all_ready("web", 3);
  }));
  CHECK(f.list("", "events").empty());
}
