// The node Lease signal end to end against kube-sim, with Kubernetes' timings scaled by 1/10
// (kubelets renew their Lease every second; the operator's --node-lease-grace is 2.4 s) and the
// node lifecycle controller slowed down, so that what the Lease alone achieves is visible: a
// stopped kubelet is seen from its Lease and its Deployment surged while the node still says
// Ready, and undone once it renews again. And the lying signals: an operator cut off from the
// API server (every request stalled: an operator-only partition), watches dropped and requests
// failing, an operator restart, a leader failover, most nodes silent at once -- none may surge.
#include <doctest/doctest.h>

#include "test/operator_e2e/operator_fixture.hpp"

namespace rg::op::testing {
namespace {

// Heartbeats every second; NotReady only after a minute (unless a test says otherwise).
sim::ClusterOptions lease_cluster_options(std::chrono::milliseconds node_monitor_grace) {
  sim::ClusterOptions options = sim::ClusterOptions{}.scaled(0.1);
  options.node_monitor_grace_period = node_monitor_grace;
  options.pod_eviction_timeout = std::chrono::minutes(10);
  options.retry_delay = std::chrono::milliseconds(10);
  return options;
}

Options lease_options() {
  Options options = e2e_options();
  options.node_lease_grace = "2400ms";  // 24 s scaled like the renew interval
  return options;
}

// Runs the cluster for `span` (a negative check has no event to wait for); false if `web` was
// ever scaled above `replicas` meanwhile.
bool never_surged(OperatorFixture& f, const std::string& name, int replicas,
                  std::chrono::milliseconds span) {
  return !f.run_until([&] { return f.spec_replicas(name) > replicas; }, span);
}

}  // namespace

TEST_CASE("a stopped kubelet is seen from its Lease, and surged for, before the node is NotReady") {
  OperatorFixture f(4, lease_cluster_options(std::chrono::minutes(1)));
  f.start_operator(lease_options());
  guard_and_settle(f, "web", 8, {{"replica-guard.io/max-surge", "100%"}});

  const auto failed = f.fail_busiest_node("web");
  bool ready_when_surged = false;
  // At least one replacement per stranded pod (more when the scheduler sends one to the dead
  // node, which still looks Ready: it is replaced too).
  CHECK_MESSAGE(f.run_until([&] {
    ready_when_surged = f.node_ready(failed.node);
    return f.spec_replicas("web") >= 8 + failed.pods;
  }),
                "spec.replicas is " << f.spec_replicas("web"));
  CHECK_MESSAGE(ready_when_surged, "the node was already NotReady: the Lease signal was not used");
  // Events are written in the background: wait for it.
  CHECK(f.run_until([&] { return f.has_event("web", "ScaledUpForStrandedPods"); }));
  const std::string message = f.event_message("web", "ScaledUpForStrandedPods");
  CHECK_MESSAGE(message.find(failed.node + ": no Lease renewal observed") != std::string::npos,
                message);
  // The replacements serve on the live nodes.
  CHECK(f.run_until([&] { return f.ready_pods("web") >= 8; }));

  // The kubelet is back: its Lease renews, the surge goes after the scale-down delay.
  f.cluster.stop_kubelet(failed.node, false);
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("web") == 8; }),
                "spec.replicas stayed " << f.spec_replicas("web") << " after recovery");
  CHECK(f.run_until([&] { return f.has_event("web", "ScaledDownAfterRecovery"); }));
}

TEST_CASE("a Deployment's node-grace-period annotation keeps the Lease signal from surging it") {
  OperatorFixture f(4, lease_cluster_options(std::chrono::minutes(1)));
  f.start_operator(lease_options());
  guard_and_settle(
      f, "patient", 8,
      {{"replica-guard.io/max-surge", "100%"}, {"replica-guard.io/node-grace-period", "10m"}});
  guard_and_settle(f, "web", 8, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.busiest_node("web");
  const int patient_there = [&] {
    int n = 0;
    for (const auto& pod : f.cluster.pods_of("patient"))
      n += pod.at("spec").as_object().at("nodeName").as_string() == failed.node ? 1 : 0;
    return n;
  }();
  REQUIRE(patient_there > 0);
  f.cluster.stop_kubelet(failed.node, true);
  // web surges from the Lease; patient, asking for 10 minutes, does not.
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("web") >= 8 + failed.pods; }),
                "web: spec.replicas is " << f.spec_replicas("web"));
  CHECK(f.spec_replicas("patient") == 8);
}

TEST_CASE("lying signals surge nothing") {
  OperatorFixture f(5, lease_cluster_options(std::chrono::minutes(1)));
  // The partition brake off: the Lease rules alone must hold (every node looks silent at once).
  Options options = lease_options();
  options.max_unhealthy_node_fraction = 1.0;
  auto* op = &f.start_operator(options);
  guard_and_settle(f, "web", 10, {{"replica-guard.io/max-surge", "100%"}});
  // Observing for longer than the grace first: the operator is ready to judge.
  CHECK(never_surged(f, "web", 10, std::chrono::seconds(3)));

  SUBCASE("the operator cut off from the API server for twice the grace") {
    f.server.faults().drop_watches();
    f.server.faults().stall(std::chrono::milliseconds(4800));
    CHECK(never_surged(f, "web", 10, std::chrono::seconds(12)));
  }
  SUBCASE("watches dropped again and again, half the requests failing") {
    sim::FaultConfig faults;
    faults.error_rate = 0.5;
    faults.retry_after_seconds = 1;
    f.server.faults().set_config(faults);
    for (int i = 0; i < 6; ++i) {
      f.server.faults().drop_watches();
      CHECK(never_surged(f, "web", 10, std::chrono::seconds(1)));
    }
    f.server.faults().set_config({});
    CHECK(never_surged(f, "web", 10, std::chrono::seconds(5)));
  }
  SUBCASE("an operator restart") {
    f.stop_operator(*op);
    op = &f.start_operator(options);
    CHECK(never_surged(f, "web", 10, std::chrono::seconds(6)));
  }
  CHECK_FALSE(f.has_event("web", "ScaledUpForStrandedPods"));
}

TEST_CASE("a leader failover surges nothing: the new leader trusts no silence it did not lead") {
  OperatorFixture f(5, lease_cluster_options(std::chrono::minutes(1)));
  Options options = lease_options();
  options.max_unhealthy_node_fraction = 1.0;
  options.leader_elect = true;
  options.leader_election_namespace = "default";
  options.leader_elect_lease_duration = "1s";
  options.leader_elect_renew_deadline = "600ms";
  options.leader_elect_retry_period = "100ms";
  auto& first = f.start_operator(options);
  auto& second = f.start_operator(options);
  const auto holder = [&] {
    const auto lease = f.cluster.get("coordination.k8s.io", "leases", "default", "replica-guard");
    const auto* spec = lease.if_contains("spec");
    const auto* identity =
        spec != nullptr ? spec->as_object().if_contains("holderIdentity") : nullptr;
    return identity != nullptr && identity->is_string() ? std::string(identity->as_string())
                                                        : std::string();
  };
  REQUIRE(f.run_until([&] { return !holder().empty(); }));
  const std::string leader = holder();
  guard_and_settle(f, "web", 10, {{"replica-guard.io/max-surge", "100%"}});
  CHECK(never_surged(f, "web", 10, std::chrono::seconds(3)));
  f.stop_operator(first.manager->identity() == leader ? first : second);
  CHECK(f.run_until([&] { return !holder().empty() && holder() != leader; }));
  CHECK(never_surged(f, "web", 10, std::chrono::seconds(5)));
  CHECK_FALSE(f.has_event("web", "ScaledUpForStrandedPods"));
}

TEST_CASE("most nodes silent at once: no surge from Leases; NotReady then suppresses, said so") {
  OperatorFixture f(5, lease_cluster_options(std::chrono::seconds(5)));
  // A silent node is judged at its last renewal + grace; the others silenced with it leave the
  // liveness window (grace / 2) at theirs + grace / 2, at most one renew interval (1 s) later.
  // The margin is grace / 2 - 1 s: 0.2 s at 2.4 s, which a loaded sanitizer run's watch lag and
  // the three stops' spread can eat; 4 s (still before NotReady at 5 s) leaves 1 s.
  auto options = lease_options();
  options.node_lease_grace = "4s";
  f.start_operator(options);
  guard_and_settle(f, "web", 10, {{"replica-guard.io/max-surge", "100%"}});
  CHECK(never_surged(f, "web", 10, std::chrono::seconds(3)));
  // Three of five (60%): the other two are no majority of anyone's others.
  int stopped = 0;
  for (const auto& node : f.cluster.list("", "nodes")) {
    if (stopped == 3) break;
    f.cluster.stop_kubelet(std::string(node.at("metadata").as_object().at("name").as_string()),
                           true);
    ++stopped;
  }
  CHECK(f.run_until([&] { return f.has_event("web", "SurgeSuppressed"); }));
  // No surge may come from the Leases. The node lifecycle controller marks the three NotReady
  // one at a time (each at its own last heartbeat + grace): when the first goes before the
  // others, 1 of 5 unhealthy is no partition, and its pods may surge on NotReady before the
  // rest suppress it -- a surge that cites NotReady, not a Lease.
  const std::string surged = f.event_message("web", "ScaledUpForStrandedPods");
  CHECK_MESSAGE(surged.find("Lease") == std::string::npos, surged);
  if (surged.empty()) CHECK(f.spec_replicas("web") == 10);
}

}  // namespace rg::op::testing
