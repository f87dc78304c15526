// Serving and stranded replicas from pods and their nodes.
#include <doctest/doctest.h>

#include <map>

#include "operator/replica_assessment.hpp"

using namespace rg::op;
using namespace std::chrono_literals;

namespace {

const WallClock::time_point kNow = WallClock::time_point(1'000'000s);

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

}  // namespace

TEST_CASE("ready pods on ready nodes serve; pods on long-failed nodes are stranded") {
  FakeNodes cluster;
  cluster.nodes["a"] = {true, {}};
  cluster.nodes["b"] = {false, kNow - 45s};  // failed longer than the grace
  cluster.nodes["c"] = {false, kNow - 10s};  // failed, still within the grace
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
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, 30s);
  CHECK(r.selected == 8);
  CHECK(r.serving == 1);
  CHECK(r.stranded == 3);
  REQUIRE(r.next_stranded_in);
  CHECK(*r.next_stranded_in == 20s);
  CHECK(r.failed_nodes == std::vector<std::string>{"b", "gone"});
}

TEST_CASE("the earliest pending node decides when to look again") {
  FakeNodes cluster;
  cluster.nodes["x"] = {false, kNow - 5s};
  cluster.nodes["y"] = {false, kNow - 25s};
  const std::vector<PodFacts> pods = {{"x", false, true}, {"y", false, true}};
  const ReplicaAssessment r = assess_replicas(pods, cluster.lookup(), kNow, 30s);
  CHECK(r.stranded == 0);
  CHECK(r.serving == 0);
  REQUIRE(r.next_stranded_in);
  CHECK(*r.next_stranded_in == 5s);
}

TEST_CASE("a grace of zero strands pods on any unhealthy node") {
  FakeNodes cluster;
  cluster.nodes["x"] = {false, kNow};
  const ReplicaAssessment r = assess_replicas({{"x", false, true}}, cluster.lookup(), kNow, 0ms);
  CHECK(r.stranded == 1);
  CHECK_FALSE(r.next_stranded_in);
}
