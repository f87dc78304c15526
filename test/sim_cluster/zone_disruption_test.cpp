// Zone-aware NoExecute tainting (node lifecycle controller: ComputeZoneState, handleDisruption,
// the per-zone RateLimitedTimedQueue): the pure pieces, and zone failures in a cluster.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "cluster_fixture.hpp"
#include "sim/cluster/node_lifecycle_controller.hpp"
#include "sim/cluster/rate_limited_queue.hpp"

namespace json = boost::json;
using rg::sim::cluster::compute_zone_state;
using rg::sim::cluster::RateLimitedTimedQueue;
using rg::sim::cluster::ZoneState;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_status;
using rg::sim::testing::fast_options;
using namespace std::chrono_literals;

namespace {

// Healthy nodes must stay Ready on a loaded machine: a grace period of 200 ms, not 50.
rg::sim::ClusterOptions zone_options() {
  auto options = fast_options();
  options.node_monitor_grace_period = 200ms;
  return options;
}

bool has_taint(ClusterFixture& f, const std::string& node, std::string_view key,
               std::string_view effect) {
  auto object = f.get("", "nodes", "", node);
  const auto* taints = object.at("spec").as_object().if_contains("taints");
  if (taints == nullptr) return false;
  for (const auto& taint : taints->as_array())
    if (taint.at("key").as_string() == key && taint.at("effect").as_string() == effect) return true;
  return false;
}

bool unreachable(ClusterFixture& f, const std::string& node) {
  return condition_status(f.get("", "nodes", "", node), "Ready") == "Unknown" &&
         has_taint(f, node, "node.kubernetes.io/unreachable", "NoSchedule");
}

bool no_execute(ClusterFixture& f, const std::string& node) {
  return has_taint(f, node, "node.kubernetes.io/unreachable", "NoExecute");
}

}  // namespace

TEST_CASE("ComputeZoneState") {
  CHECK(compute_zone_state(0, 1, 0.55) == ZoneState::full_disruption);
  CHECK(compute_zone_state(0, 0, 0.55) == ZoneState::normal);
  CHECK(compute_zone_state(1, 2, 0.55) == ZoneState::normal);  // not more than 2 not Ready
  CHECK(compute_zone_state(2, 3, 0.55) == ZoneState::partial_disruption);  // 60 %
  CHECK(compute_zone_state(3, 3, 0.55) == ZoneState::normal);              // 50 %
}

TEST_CASE("RateLimitedTimedQueue: one node per token, a processed node is not queued again") {
  const auto t0 = std::chrono::steady_clock::now();
  RateLimitedTimedQueue queue(0.1, t0);  // --node-eviction-rate
  CHECK(queue.add("a", t0));
  CHECK(queue.add("b", t0));
  CHECK_FALSE(queue.add("a", t0));
  std::vector<std::string> done;
  auto take = [&](const std::string& node) {
    done.push_back(node);
    return true;
  };
  queue.try_process(t0, take);
  CHECK(done == std::vector<std::string>{"a"});
  queue.try_process(t0 + 5s, take);
  CHECK(done.size() == 1);
  CHECK(*queue.next_attempt(t0 + 5s) == t0 + 10s);
  queue.try_process(t0 + 10s, take);
  CHECK(done == std::vector<std::string>{"a", "b"});
  CHECK_FALSE(queue.add("a", t0 + 11s));  // processed: in the set until removed
  CHECK(queue.remove("a"));
  CHECK(queue.add("a", t0 + 11s));
  queue.swap_limiter(0, t0 + 30s);  // stopped
  queue.try_process(t0 + 60s, take);
  CHECK(done.size() == 2);
  CHECK_FALSE(queue.next_attempt(t0 + 60s));
  // Back to a rate: the stopped limiter had no token, so the new one starts empty (SwapLimiter
  // drains it) and the first token comes a period later.
  queue.swap_limiter(0.1, t0 + 60s);
  queue.try_process(t0 + 60s, take);
  CHECK(done.size() == 2);
  queue.try_process(t0 + 70s, take);
  CHECK(done.size() == 3);
}

TEST_CASE("a partially disrupted small zone gets no NoExecute taints; a healthy zone's do") {
  ClusterFixture f(zone_options(), 6);
  for (const auto* node : {"node-1", "node-2", "node-3", "node-4"})
    f.label_node(node, "topology.kubernetes.io/zone", "a");
  for (const auto* node : {"node-5", "node-6"})
    f.label_node(node, "topology.kubernetes.io/zone", "b");
  // The three die while the controller cannot see (partitioned longer than its leader
  // election lasts, so it restarts): it then judges them from the same moment, and they go
  // Unknown in the same pass -- not one after the other, the first tainted while the zone was
  // still Normal.
  auto& faults = f.faults();
  faults.partition("system:serviceaccount:kube-system:node-controller", "", 100ms);
  for (const auto* node : {"node-1", "node-2", "node-3"}) f.cluster.stop_kubelet(node);
  REQUIRE(f.run_until([&] {
    return unreachable(f, "node-1") && unreachable(f, "node-2") && unreachable(f, "node-3");
  }));
  // Zone b: one of two down is Normal, so its node is tainted at the normal rate.
  f.cluster.stop_kubelet("node-6");
  REQUIRE(f.run_until([&] { return no_execute(f, "node-6"); }));
  // By then zone a's nodes have been through as many passes: 3 of 4 down (75 % >= 55 %) in a
  // zone of 4 nodes (not more than --large-cluster-size-threshold) stops its tainting.
  for (const auto* node : {"node-1", "node-2", "node-3"}) CHECK_FALSE(no_execute(f, node));
  // A node back makes it 2 of 4: Normal again, the others are tainted.
  f.cluster.start_kubelet("node-3");
  REQUIRE(f.run_until([&] { return no_execute(f, "node-1") && no_execute(f, "node-2"); }));
}

TEST_CASE("a partially disrupted large zone keeps tainting at the secondary rate") {
  auto options = zone_options();
  options.large_cluster_size_threshold = 3;
  ClusterFixture f(options, 4);
  for (const auto* node : {"node-1", "node-2", "node-3"}) f.cluster.stop_kubelet(node);
  REQUIRE(f.run_until([&] {
    return no_execute(f, "node-1") && no_execute(f, "node-2") && no_execute(f, "node-3");
  }));
}

TEST_CASE("a fully disrupted zone is tainted while another is healthy; all down: no taints") {
  ClusterFixture f(zone_options(), 4);
  for (const auto* node : {"node-1", "node-2"})
    f.label_node(node, "topology.kubernetes.io/zone", "a");
  for (const auto* node : {"node-3", "node-4"})
    f.label_node(node, "topology.kubernetes.io/zone", "b");
  f.cluster.stop_kubelet("node-1");
  f.cluster.stop_kubelet("node-2");
  REQUIRE(f.run_until([&] { return no_execute(f, "node-1") && no_execute(f, "node-2"); }));
  // Every zone fully disrupted: master disruption mode removes every NoExecute taint.
  f.cluster.stop_kubelet("node-3");
  f.cluster.stop_kubelet("node-4");
  REQUIRE(f.run_until([&] {
    return unreachable(f, "node-3") && unreachable(f, "node-4") && !no_execute(f, "node-1") &&
           !no_execute(f, "node-2");
  }));
  CHECK_FALSE(no_execute(f, "node-3"));
  // One node back: out of disruption mode, zone a (still fully disrupted) is tainted again.
  f.cluster.start_kubelet("node-3");
  REQUIRE(f.run_until([&] { return no_execute(f, "node-1") && no_execute(f, "node-2"); }));
}
