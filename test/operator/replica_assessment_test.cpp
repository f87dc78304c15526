// Serving and stranded replicas from pods and what the operator observed of their nodes.
#include <doctest/doctest.h>

#include <map>

#include "operator/replica_assessment.hpp"

using namespace rg::op;
using namespace std::chrono_literals;
using TimePoint = std::chrono::steady_clock::time_point;

namespace {

const TimePoint kNow = TimePoint(1'000'000s);
const NodeGrace kGrace{30s, 0ms};

NodeFacts not_ready(TimePoint since) {
  NodeFacts n;
  n.ready = false;
  n.not_ready_since = since;
  return n;
}

NodeFacts suspect(TimePoint since) {
  NodeFacts n;
  n.lease_expired = true;
  n.suspected_at = since;
  n.evidence = "evidence";
  return n;
}

struct FakeNodes {
  std::map<std::string, NodeFacts, std::less<>> nodes;
  NodeLookup lookup() const {
    return [this](std::string_view name) -> std::optional<NodeFacts> {
      auto it = nodes.find(name);
      if (it == nodes.end()) return std::nullopt;
      return it->second;
    };
  }
};

std::int32_t by(const ReplicaAssessment& r, StrandedReason reason) {
  return r.stranded_by_reason[static_cast<std::size_t>(reason)];
}

}  // namespace

TEST_CASE("ready pods on ready nodes serve; pods on long-failed nodes are stranded") {
  FakeNodes cluster;
  cluster.nodes["a"] = NodeFacts{};
  cluster.nodes["b"] = not_ready(kNow - 45s);  // failed longer than the grace
  cluster.nodes["c"] = not_ready(kNow - 10s);  // failed, still within the grace
  const std::vector<PodFacts> pods = {
      {"a", false, true},     // serving
      {"a", false, false},    // starting on a healthy node: neither serving nor stranded
      {"b", false, true},     // stranded (Ready is stale: the node is gone)
      {"b", false, false},    // stranded
      {"b", true, false},     // terminating: already being replaced
      {"c", false, true},     // not serving, not yet stranded
      {"", false, false},     // pending, unscheduled
      {"gone", false, true},  // its node was deleted: stranded at once
  };
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, kGrace);
  CHECK(r.selected == 8);
  CHECK(r.serving == 1);
  CHECK(r.stranded == 3);
  CHECK(by(r, StrandedReason::kNodeNotReady) == 2);
  CHECK(by(r, StrandedReason::kNodeGone) == 1);
  CHECK(by(r, StrandedReason::kNodeLeaseExpired) == 0);
  REQUIRE(r.next_stranded_in);
  CHECK(*r.next_stranded_in == 20s);
  CHECK(r.failed_nodes == std::vector<std::string>{"b", "gone"});
  CHECK(r.evidence.empty());
}

TEST_CASE("the earliest pending node decides when to look again") {
  FakeNodes cluster;
  cluster.nodes["x"] = not_ready(kNow - 5s);
  cluster.nodes["y"] = not_ready(kNow - 25s);
  const std::vector<PodFacts> pods = {{"x", false, true}, {"y", false, true}};
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, kGrace);
  CHECK(r.stranded == 0);
  CHECK(r.serving == 0);
  REQUIRE(r.next_stranded_in);
  CHECK(*r.next_stranded_in == 5s);
}

TEST_CASE("a grace of zero strands pods on any unhealthy node") {
  FakeNodes cluster;
  cluster.nodes["x"] = not_ready(kNow);
  const ReplicaAssessment r =
      assess_replicas({{"x", false, true}}, cluster.lookup(), kNow, NodeGrace{0ms, 0ms});
  CHECK(r.stranded == 1);
  CHECK_FALSE(r.next_stranded_in);
}

TEST_CASE("pods on a suspect node are stranded at once, with its evidence, and do not serve") {
  FakeNodes cluster;
  cluster.nodes["s"] = suspect(kNow - 1s);  // still Ready: the controller has not noticed
  cluster.nodes["ok"] = NodeFacts{};
  const std::vector<PodFacts> pods = {{"s", false, true}, {"s", true, true}, {"ok", false, true}};
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, kGrace);
  CHECK(r.serving == 1);
  CHECK(r.stranded == 1);  // the terminating one is already being replaced
  CHECK(by(r, StrandedReason::kNodeLeaseExpired) == 1);
  CHECK(r.failed_nodes == std::vector<std::string>{"s"});
  CHECK(r.evidence == std::vector<std::string>{"evidence"});
}

TEST_CASE("the Deployment's node-grace-period annotation delays the suspect path too") {
  FakeNodes cluster;
  cluster.nodes["s"] = suspect(kNow - 10s);
  const NodeGrace annotated{2min, 2min};
  const ReplicaAssessment r =
      assess_replicas({{"s", false, true}}, cluster.lookup(), kNow, annotated);
  CHECK(r.stranded == 0);
  CHECK(r.serving == 0);
  REQUIRE(r.next_stranded_in);
  CHECK(*r.next_stranded_in == 110s);
}

TEST_CASE("a suspect node that turns NotReady keeps its pods stranded") {
  FakeNodes cluster;
  NodeFacts n = suspect(kNow - 40s);
  n.ready = false;
  n.not_ready_since = kNow - 5s;  // the transition, well after it turned suspect
  SUBCASE("still suspect") { cluster.nodes["s"] = n; }
  SUBCASE(
      "the Lease signal no longer trusted (most nodes silent): the NotReady grace counts "
      "from the earlier suspicion") {
    n.lease_expired = false;
    cluster.nodes["s"] = n;
  }
  const ReplicaAssessment r = assess_replicas({{"s", false, true}}, cluster.lookup(), kNow, kGrace);
  CHECK(r.stranded == 1);
  CHECK_FALSE(r.next_stranded_in);
}

TEST_CASE("pods that never started on a failed node are counted apart") {
  FakeNodes cluster;
  cluster.nodes["s"] = suspect(kNow - 1s);
  const std::vector<PodFacts> pods = {{"s", false, true, true}, {"s", false, false, false}};
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, kGrace);
  CHECK(r.stranded == 2);
  CHECK(r.stranded_unstarted == 1);
}
