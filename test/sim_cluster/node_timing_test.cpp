// Node timing as Kubernetes 1.35 has it (sim/README.md, "Node timing"): the Lease is the
// heartbeat and node status is written only when it changes; a live kubelet puts back a pod
// status on its status manager's sync; the node lifecycle controller's Events; a slow kubelet;
// a control-plane outage; a partitioned kubelet.
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
using Clock = std::chrono::steady_clock;

namespace {

std::uint64_t node_rv(ClusterFixture& f, const std::string& node) {
  return f.store.get(f.type("", "nodes"), "", node)->resource_version;
}

std::vector<json::object> events_with_reason(ClusterFixture& f, std::string_view reason) {
  std::vector<json::object> out;
  for (auto& event : f.list("", "events"))
    if (event.at("reason").as_string() == reason) out.push_back(std::move(event));
  return out;
}

}  // namespace

TEST_CASE("Kubernetes' defaults: Lease 40 s renewed every 10 s, status checked every 10 s") {
  const rg::sim::ClusterOptions defaults;
  CHECK(defaults.node_lease_duration == std::chrono::seconds(40));
  CHECK(defaults.lease_renew_interval() == std::chrono::seconds(10));
  CHECK(defaults.node_status_update_frequency == std::chrono::seconds(10));
  CHECK(defaults.node_status_report_frequency == std::chrono::minutes(5));
  CHECK(defaults.node_monitor_period == std::chrono::seconds(5));
  CHECK(defaults.node_monitor_grace_period == std::chrono::seconds(50));
  CHECK(defaults.pod_status_sync_period == std::chrono::seconds(10));
  CHECK(defaults.node_eviction_rate == 0.1);
  CHECK(defaults.secondary_node_eviction_rate == 0.01);
  CHECK(defaults.unhealthy_zone_threshold == 0.55);
  CHECK(defaults.large_cluster_size_threshold == 50);
  const auto scaled = defaults.scaled(0.1);
  CHECK(scaled.lease_renew_interval() == std::chrono::seconds(1));
  CHECK(scaled.node_eviction_rate == doctest::Approx(1.0));
}

TEST_CASE("the Lease is the heartbeat: an unchanged node status is not written") {
  auto options = fast_options();
  options.node_lease_duration = std::chrono::milliseconds(80);  // renewed every 20 ms
  options.node_status_update_frequency = std::chrono::milliseconds(5);
  options.node_status_report_frequency = std::chrono::seconds(60);
  // The node lifecycle controller writes the node too when a stall of the machine outlasts the
  // scaled grace period (50 ms); only the kubelet's writes are under test.
  options.node_monitor_grace_period = std::chrono::hours(1);
  ClusterFixture f(options, 1);
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-1").empty(); }));
  auto lease = f.get("coordination.k8s.io", "leases", "kube-node-lease", "node-1");
  CHECK(lease.at("spec").at("leaseDurationSeconds") == 1);  // 80 ms, in whole seconds
  CHECK(lease.at("spec").at("holderIdentity") == "node-1");
  const auto rv = node_rv(f, "node-1");
  std::set<std::string> renewals;
  const auto start = Clock::now();
  f.run_until(
      [&] {
        renewals.insert(renew_time(f, "node-1"));
        return Clock::now() - start >= std::chrono::milliseconds(400);
      },
      std::chrono::seconds(10));
  const auto elapsed = Clock::now() - start;
  // Checked every 5 ms, written never (nothing changed, the report period is a minute away).
  CHECK(node_rv(f, "node-1") == rv);
  // Every 20-20.8 ms: no more than the elapsed time allows, and some.
  CHECK(renewals.size() <= static_cast<std::size_t>(elapsed / std::chrono::milliseconds(20)) + 2);
  CHECK(renewals.size() >= 3);
}

TEST_CASE("a node status someone changed is written back on the kubelet's next check") {
  auto options = fast_options();
  options.node_status_report_frequency = std::chrono::seconds(60);
  // The node lifecycle controller writes the node too when a stall of the machine outlasts the
  // scaled grace period (50 ms); only the kubelet's writes are under test.
  options.node_monitor_grace_period = std::chrono::hours(1);
  ClusterFixture f(options, 1);
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-1").empty(); }));
  f.set_condition_status("nodes", "", "node-1", "Ready", "False");
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "True"; }));
  CHECK(condition_field(f.get("", "nodes", "", "node-1"), "Ready", "reason") == "KubeletReady");
}

TEST_CASE("a live kubelet puts a pod's Ready back on its status manager's sync, not at once") {
  auto options = fast_options();
  options.pod_status_sync_period = std::chrono::hours(1);  // no periodic sync in the test
  ClusterFixture f(options, 1);
  f.create_deployment("web", 1);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 1); }));
  const std::string name(f.pods_of("web").front().at("metadata").at("name").as_string());
  f.set_condition_status("pods", "default", name, "Ready", "False");
  // Many kubelet syncs later (its Lease renews every 10 ms) the pod is still not Ready...
  const auto renewed = renew_time(f, "node-1");
  REQUIRE(f.run_until([&] { return renew_time(f, "node-1") != renewed; }));
  const auto renewed_again = renew_time(f, "node-1");
  REQUIRE(f.run_until([&] { return renew_time(f, "node-1") != renewed_again; }));
  CHECK(condition_status(f.get("", "pods", "default", name), "Ready") == "False");
  // ...until its status manager syncs: a restarted kubelet syncs at once.
  f.cluster.stop_kubelet("node-1");
  f.cluster.start_kubelet("node-1");
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "pods", "default", name), "Ready") == "True"; }));
}

TEST_CASE("a dead node: NodeNotReady Events for the node and each pod, Ready=False kept plain") {
  auto options = fast_options();
  // Only node-1's death turns a node NotReady: a stall of the machine longer than the scaled
  // grace period (50 ms) would flap a live node, one NodeNotReady Event more.
  options.node_monitor_grace_period = std::chrono::seconds(1);
  ClusterFixture f(options, 3);
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return f.all_ready("web", 3); }));
  json::object stranded;
  for (auto& pod : f.pods_of("web"))
    if (node_of(pod) == "node-1") stranded = pod;
  REQUIRE(!stranded.empty());
  const auto uid = stranded.at("metadata").at("uid");
  const std::string name(stranded.at("metadata").at("name").as_string());

  f.cluster.stop_kubelet("node-1");
  REQUIRE(f.run_until([&] {
    return condition_status(f.get("", "pods", "default", name), "Ready") == "False" &&
           events_with_reason(f, "NodeNotReady").size() == 2;
  }));
  auto pod = f.get("", "pods", "default", name);
  // MarkPodsNotReady changes the status only (and lastTransitionTime): no reason, no message.
  CHECK(condition_field(pod, "Ready", "reason").empty());
  CHECK(condition_field(pod, "Ready", "message").empty());
  CHECK(condition_field(pod, "Ready", "lastTransitionTime") >=
        condition_field(stranded, "Ready", "lastTransitionTime"));

  for (const auto& event : events_with_reason(f, "NodeNotReady")) {
    const auto& involved = event.at("involvedObject").as_object();
    CHECK(event.at("source").at("component") == "node-controller");
    CHECK(event.at("reportingComponent") == "node-controller");
    CHECK(event.at("count") == 1);
    CHECK(event.at("firstTimestamp") == event.at("lastTimestamp"));
    const std::string event_name(event.at("metadata").at("name").as_string());
    if (involved.at("kind") == "Pod") {
      CHECK(event.at("type") == "Warning");
      CHECK(event.at("message") == "Node is not ready");
      CHECK(involved.at("uid") == uid);
      CHECK(involved.at("namespace") == "default");
      CHECK(event_name.starts_with(name + "."));
    } else {
      CHECK(involved.at("kind") == "Node");
      CHECK(involved.at("name") == "node-1");
      CHECK(event.at("type") == "Normal");
      CHECK(event.at("message") == "Node node-1 status is now: NodeNotReady");
      CHECK(event.at("metadata").at("namespace") == "default");
      CHECK(event_name.starts_with("node-1."));
    }
  }
  CHECK(events_with_reason(f, "RegisteredNode").size() == 3);
}

TEST_CASE("a slow kubelet whose renewals land later than the grace period goes Unknown") {
  ClusterFixture f(fast_options(), 2);
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-2").empty(); }));
  f.cluster.delay_kubelet("node-2", std::chrono::milliseconds(200));  // grace: 50 ms
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "Unknown"; }));
  CHECK(f.cluster.kubelets()[1].alive);
  CHECK(condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "True");
  f.cluster.delay_kubelet("node-2", std::chrono::milliseconds(0));
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "True"; }));
}

TEST_CASE("a control-plane outage: no renewal lands, no node is judged on it, all renew after") {
  auto options = fast_options();
  options.node_monitor_grace_period = std::chrono::milliseconds(200);
  ClusterFixture f(options, 3);
  auto& faults = f.faults();
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-3").empty(); }));
  const auto outage = std::chrono::milliseconds(1000);  // five grace periods
  const auto start = Clock::now();
  faults.control_plane_outage(outage);
  const auto lease = renew_time(f, "node-1");
  bool renewed_during = false;
  bool unknown_ever = false;
  f.run_until(
      [&] {
        unknown_ever =
            unknown_ever || condition_status(f.get("", "nodes", "", "node-1"), "Ready") != "True";
        if (Clock::now() - start < outage - std::chrono::milliseconds(20))
          renewed_during = renewed_during || renew_time(f, "node-1") != lease;
        return Clock::now() - start > outage;
      },
      std::chrono::seconds(10));
  CHECK_FALSE(renewed_during);
  // After it: the kubelets renew within their backoff, and the controller, restarted (the
  // outage outlasted its leader election), judges every node afresh: none went Unknown.
  REQUIRE(f.run_until([&] {
    for (const auto& kubelet : f.cluster.kubelets())
      if (!kubelet.last_renewal || kubelet.last_renewal->monotonic < start + outage) return false;
    return true;
  }));
  f.run_until(
      [&] {
        for (const auto* node : {"node-1", "node-2", "node-3"})
          unknown_ever =
              unknown_ever || condition_status(f.get("", "nodes", "", node), "Ready") != "True";
        return Clock::now() - start > outage + std::chrono::milliseconds(600);
      },
      std::chrono::seconds(10));
  CHECK_FALSE(unknown_ever);
}

TEST_CASE("a partitioned kubelet: only its node goes Unknown") {
  auto options = fast_options();
  options.node_monitor_grace_period = std::chrono::milliseconds(200);
  ClusterFixture f(options, 3);
  auto& faults = f.faults();
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-3").empty(); }));
  faults.partition("system:node:node-2", "", std::chrono::hours(1));
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "Unknown"; }));
  CHECK(condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "True");
  CHECK(condition_status(f.get("", "nodes", "", "node-3"), "Ready") == "True");
  faults.heal();
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "True"; }));
}
