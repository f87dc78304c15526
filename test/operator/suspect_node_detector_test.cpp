// The suspect-node rules one by one, on an injected clock with Kubernetes' real timings (10 s
// renewals, 24 s grace, 12 s liveness window): a node whose Lease stops renewing is suspect after
// the grace, and nobody is when the signal lies -- a control-plane outage, a stalled watch, a
// slow operator delivering a backlog, a slow kubelet, an operator that just started.
#include <doctest/doctest.h>

#include <map>

#include "operator/suspect_node_detector.hpp"

using namespace rg::op;
using namespace std::chrono_literals;
using TimePoint = SuspectNodeDetector::TimePoint;

namespace {

const TimePoint kDetectorT0 = TimePoint(1'000'000s);

// A cluster of nodes whose kubelets renew their Lease every `interval` (each at its own phase),
// observed by the detector as the test lets time pass.
struct Cluster {
  SuspectNodeDetector detector{SuspectNodeConfig{}};
  TimePoint now = kDetectorT0;
  struct Kubelet {
    bool renewing = true;
    std::chrono::milliseconds interval{10s};
    TimePoint next;
    int renewals = 0;
  };
  std::map<std::string, Kubelet> kubelets;
  bool delivering = true;  ///< false: the operator sees nothing (outage, stalled watch)

  explicit Cluster(int nodes) {
    for (int i = 0; i < nodes; ++i) {
      const std::string name = "node-" + std::to_string(i);
      // Phases spread over the interval, as real kubelets' are.
      kubelets[name] = {true, 10s, kDetectorT0 + std::chrono::milliseconds(i * 10'000 / nodes), 0};
      detector.node_seen(name, true, "hb", "True", now);
      detector.lease_seen(name, "renew-0", now);
    }
    detector.observing_from(now);
  }

  void renew(const std::string& name) {
    Kubelet& k = kubelets.at(name);
    ++k.renewals;
    if (delivering) detector.lease_seen(name, "renew-" + std::to_string(k.renewals), now);
  }

  // Lets `duration` pass in 100 ms steps, renewing due Leases.
  void run_for(std::chrono::milliseconds duration) {
    const TimePoint end = now + duration;
    while (now < end) {
      now += 100ms;
      for (auto& [name, k] : kubelets) {
        if (k.renewing && now >= k.next) {
          renew(name);
          k.next = now + k.interval;
        }
      }
    }
  }

  // The longest `duration` during which `name` was never suspect, checked every 100 ms.
  bool ever_suspect_during(std::chrono::milliseconds duration) {
    const TimePoint end = now + duration;
    while (now < end) {
      run_for(100ms);
      if (!detector.suspects(now).empty()) return true;
    }
    return false;
  }
};

}  // namespace

TEST_CASE("a node whose Lease stops renewing is suspect after the grace, not before") {
  Cluster c(5);
  c.run_for(30s);  // observing for longer than the grace, everyone renewing
  CHECK(c.detector.suspects(c.now).empty());
  c.kubelets["node-2"].renewing = false;
  const TimePoint last_renewal = c.kubelets["node-2"].next - 10s;
  TimePoint detected{};
  while (c.now < last_renewal + 40s) {
    c.run_for(100ms);
    if (detected == TimePoint{} && !c.detector.suspects(c.now).empty()) detected = c.now;
  }
  REQUIRE(detected != TimePoint{});
  CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-2"});
  CHECK(detected - last_renewal >= 24s);
  CHECK(detected - last_renewal <= 24s + 200ms);
  const NodeHealth health = c.detector.health("node-2", c.now);
  CHECK(health.lease_expired);
  REQUIRE(health.suspected_at);
  CHECK(*health.suspected_at <= detected);
  CHECK(health.evidence.others == 4);
  CHECK(health.evidence.others_renewing == 4);
  CHECK(describe_evidence("node-2", health.evidence).starts_with("node-2: no Lease renewal"));

  // It renews again: no longer suspect, and suspected_at is forgotten.
  c.kubelets["node-2"].renewing = true;
  c.kubelets["node-2"].next = c.now;
  c.run_for(200ms);
  CHECK(c.detector.suspects(c.now).empty());
  CHECK_FALSE(c.detector.health("node-2", c.now).suspected_at);
}

TEST_CASE("(c) nobody is suspect before the operator has observed for the grace") {
  Cluster c(5);
  c.kubelets["node-1"].renewing = false;  // dead from before the operator started
  // The first sight of a Lease is no renewal: the pipeline is shown live once three of the
  // nodes have renewed (node-0 at 0.1 s, node-2 at 4 s, node-3 at 6 s), and node-1's silence
  // counts from then.
  c.run_for(29s);
  CHECK(c.detector.suspects(c.now).empty());
  c.run_for(2s);
  CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-1"});

  SUBCASE("a relist or new leadership restarts the count") {
    c.detector.observing_from(c.now);
    CHECK(c.detector.suspects(c.now).empty());
    CHECK_FALSE(c.detector.health("node-1", c.now).lease_expired);
    CHECK(c.detector.health("node-1", c.now).suspected_at);  // kept for the NotReady grace
    c.run_for(23s);
    CHECK(c.detector.suspects(c.now).empty());
    c.run_for(2s);
    CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-1"});
  }
}

TEST_CASE("(b) a control-plane outage of twice the grace makes nobody suspect, after it either") {
  Cluster c(10);
  c.run_for(30s);
  c.delivering = false;  // every renewal fails (the kubelets cannot reach the API server)
  CHECK_FALSE(c.ever_suspect_during(48s));
  CHECK_FALSE(c.detector.pipeline_live(c.now));
  // Recovery: the kubelets' next renewals land spread over one interval, as they would.
  c.delivering = true;
  CHECK_FALSE(c.ever_suspect_during(60s));

  SUBCASE("a node that really died during the outage is found once renewals flow again") {
    c.kubelets["node-4"].renewing = false;
    c.delivering = false;
    c.run_for(48s);
    c.delivering = true;
    TimePoint detected{};
    const TimePoint recovered = c.now;
    while (c.now < recovered + 60s && detected == TimePoint{}) {
      c.run_for(100ms);
      if (!c.detector.suspects(c.now).empty()) detected = c.now;
    }
    REQUIRE(detected != TimePoint{});
    CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-4"});
    CHECK(detected - recovered >= 24s);  // its silence counts from when the pipeline was live
    CHECK(detected - recovered <= 36s);
  }
}

TEST_CASE("(b) a stalled watch: nothing is observed, so nobody is suspect; then it resumes") {
  Cluster c(5);
  c.run_for(30s);
  c.delivering = false;
  CHECK_FALSE(c.ever_suspect_during(2min));
  // The watch resumes with a relist: every Lease shows a new renewTime at once.
  c.delivering = true;
  for (auto& [name, k] : c.kubelets) c.renew(name);
  c.detector.observing_from(c.now);
  CHECK_FALSE(c.ever_suspect_during(60s));
}

TEST_CASE("(b) a slow operator delivering a backlog judges nobody") {
  Cluster c(5);
  c.run_for(30s);
  // The operator falls 40 s behind: nothing arrives, then the backlog all at once -- each
  // Lease's latest renewTime, as a DeltaFIFO coalesces them.
  c.delivering = false;
  CHECK_FALSE(c.ever_suspect_during(40s));
  c.delivering = true;
  for (auto& [name, k] : c.kubelets) c.renew(name);
  CHECK(c.detector.suspects(c.now).empty());
  CHECK_FALSE(c.ever_suspect_during(60s));
}

TEST_CASE("one slow kubelet renewing under the grace is never suspect") {
  Cluster c(5);
  c.kubelets["node-3"].interval = 20s;  // twice as slow as it should be, still under 24 s
  CHECK_FALSE(c.ever_suspect_during(3min));
}

TEST_CASE("most nodes silent at once: the pipeline is not shown live, nobody is suspect") {
  Cluster c(5);
  c.run_for(30s);
  for (const char* name : {"node-0", "node-1", "node-2"}) c.kubelets[name].renewing = false;
  CHECK_FALSE(c.ever_suspect_during(2min));
  SUBCASE("two of five: a majority of the others still renews, both are found") {
    c.kubelets["node-2"].renewing = true;
    c.kubelets["node-2"].next = c.now;
    c.run_for(30s);
    CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-0", "node-1"});
  }
}

TEST_CASE("(c) Leases without a Node are ignored; a Node without a Lease is never suspect") {
  Cluster c(3);
  c.detector.lease_seen("orphan", "r1", c.now);                    // no Node
  c.detector.node_seen("old-kubelet", true, "hb", "True", c.now);  // no Lease
  c.run_for(2min);
  CHECK(c.detector.suspects(c.now).empty());
  CHECK_FALSE(c.detector.health("old-kubelet", c.now).lease_expired);

  SUBCASE("a deleted Node's Lease is ignored again") {
    c.kubelets["node-0"].renewing = false;
    c.detector.node_deleted("node-0", c.now);
    CHECK_FALSE(c.ever_suspect_during(1min));
  }
}

TEST_CASE("a node status heartbeat proves life; the controller's Unknown does not") {
  Cluster c(3);
  c.run_for(30s);
  c.kubelets["node-1"].renewing = false;
  // The kubelet still posts its status every 10 s (its Lease writes fail).
  for (int i = 1; i <= 5; ++i) {
    c.run_for(10s);
    c.detector.node_seen("node-1", true, "hb-" + std::to_string(i), "True", c.now);
  }
  CHECK(c.detector.suspects(c.now).empty());
  // The node lifecycle controller marks it Unknown, keeping the old heartbeat: no proof.
  c.detector.node_seen("node-1", false, "hb-5", "Unknown", c.now);
  c.run_for(25s);
  CHECK(c.detector.suspects(c.now) == std::vector<std::string>{"node-1"});
}

TEST_CASE("the NotReady transition is timed on the operator's clock") {
  Cluster c(3);
  CHECK_FALSE(c.detector.health("node-0", c.now).not_ready_since);
  c.run_for(5s);
  const TimePoint seen = c.now;
  c.detector.node_seen("node-0", false, "hb", "Unknown", c.now);
  c.run_for(5s);
  c.detector.node_seen("node-0", false, "hb", "Unknown", c.now);  // still NotReady: unchanged
  CHECK(c.detector.health("node-0", c.now).not_ready_since == seen);
  c.detector.node_seen("node-0", true, "hb2", "True", c.now);
  CHECK_FALSE(c.detector.health("node-0", c.now).not_ready_since);
}

TEST_CASE("renewal gaps are reported as observed") {
  SuspectNodeDetector d{SuspectNodeConfig{}};
  d.node_seen("a", true, "", "True", kDetectorT0);
  CHECK_FALSE(d.lease_seen("a", "r1", kDetectorT0));       // first sight: no gap
  CHECK_FALSE(d.lease_seen("a", "r1", kDetectorT0 + 3s));  // unchanged (a relist)
  CHECK_FALSE(
      d.lease_seen("a", "r2", kDetectorT0 + 10s));  // first renewal: nothing to measure from
  CHECK(d.lease_seen("a", "r3", kDetectorT0 + 20400ms) == 10400ms);
}

TEST_CASE("a pod seen turn Ready proves its node alive and ends the suspicion") {
  Cluster c(3);
  c.run_for(30s);
  c.kubelets["node-1"].renewing = false;
  c.run_for(25s);
  const auto first = c.detector.health("node-1", c.now);
  REQUIRE(first.lease_expired);
  // Its kubelet put back a pod's Ready: not suspect, the silence counts again from here...
  c.detector.proof_of_life("node-1", c.now);
  CHECK_FALSE(c.detector.health("node-1", c.now).suspected_at);
  c.run_for(20s);
  CHECK(c.detector.suspects(c.now).empty());
  // ...and a whole grace later it is suspect again: a new episode.
  c.run_for(5s);
  const auto second = c.detector.health("node-1", c.now);
  CHECK(second.lease_expired);
  CHECK(*second.suspected_at > *first.suspected_at);
  // An unknown node is not created by it.
  c.detector.proof_of_life("node-9", c.now);
  CHECK_FALSE(c.detector.health("node-9", c.now).suspected_at);
}

TEST_CASE("the evidence counts follow renewals ageing out, holders leaving and coming back") {
  // Kept without a pass over every node (5,000 nodes renew ~500 times a second): checked here
  // against the definition at each step.
  Cluster c(6);
  c.kubelets["node-0"].renewing = false;
  c.kubelets["node-1"].renewing = false;
  c.run_for(35s);  // live once three renewed (6.7 s), then the grace
  auto evidence = [&](const std::string& node) { return c.detector.health(node, c.now).evidence; };
  REQUIRE(c.detector.health("node-0", c.now).lease_expired);
  CHECK(evidence("node-0").others == 5);
  CHECK(evidence("node-0").others_renewing == 4);  // node-1 is silent too
  // A Lease without its Node does not count; neither does the Node without its Lease.
  c.detector.node_deleted("node-2", c.now);
  CHECK(evidence("node-0").others == 4);
  CHECK(evidence("node-0").others_renewing == 3);
  c.detector.lease_deleted("node-3", c.now);
  CHECK(evidence("node-0").others == 3);
  CHECK(evidence("node-0").others_renewing == 2);
  // node-2's Node comes back while its renewals are in the window: it counts again.
  c.detector.node_seen("node-2", true, "hb", "True", c.now);
  CHECK(evidence("node-0").others == 4);
  CHECK(evidence("node-0").others_renewing == 3);
  // Every renewal stops: after the liveness window the pipeline is not live, nobody is suspect.
  c.delivering = false;
  c.run_for(13s);
  CHECK_FALSE(c.detector.pipeline_live(c.now));
  CHECK_FALSE(c.detector.health("node-0", c.now).lease_expired);
  // Renewals flow again (node-3's Lease is seen anew: it counts from its second renewal); the
  // grace counts from then.
  c.delivering = true;
  c.run_for(11s);
  CHECK(c.detector.pipeline_live(c.now));
  CHECK_FALSE(c.detector.health("node-0", c.now).lease_expired);
  c.run_for(25s);
  REQUIRE(c.detector.health("node-0", c.now).lease_expired);
  CHECK(evidence("node-0").others == 5);
  CHECK(evidence("node-0").others_renewing == 4);
}
