#!/usr/bin/env python3
"""Lying signals: replica-guard must not surge when nothing died. One kube-sim (ten nodes, time
scale 0.1), replica-guard, one guarded Deployment with a pod on every node, and a Deployment
watch that records every surge (spec.replicas above desired). One replica without leader
election first -- an elected leader that loses the API also loses its leadership, and regaining
it restarts its observation, which would hide what the Lease rules themselves do --, then two
electing a leader for the failover. First
a real death, which must surge (else the rest proves nothing), then scenarios in which no node
died but a signal says one might have, each watched for surges for twice the operator's node
grace after it ends:

- a control-plane outage of twice the Lease grace: every request fails, and the kubelets'
  renewals do not reach the store either;
- a partition of the operators alone (their User-Agent's requests fail) for twice the grace;
- a slow kubelet: one node's Lease renewals land late, by less than the grace allows;
- watches dropped every few seconds;
- the operator restarted (SIGTERM, a new process);
- the leader killed (SIGKILL), the standby taking over;
- 60% of the nodes dying at once: a partition is likelier, so no surge -- and a SurgeSuppressed
  Event and the replica_guard_surge_suppressed gauge say so.

  test/outcome/lying_signals_test.py BUILD_DIR
"""
import itertools
import os
import re
import signal
import socket
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from kube_api import ApiError, KubeApi  # noqa: E402
from kube_sim_session import Checks, KubeSim, skip_without_kubectl, stop, wait_for  # noqa: E402
import outcome  # noqa: E402

SCALE = 0.1
NODES = 10
GRACE = 30 * SCALE            # the operator's --node-grace-period at this scale
LEASE_GRACE = 24 * SCALE      # its --node-lease-grace
NOT_READY = 50 * SCALE        # the node lifecycle controller's grace
RENEW = 10 * SCALE            # the kubelet's Lease renewal interval
LEADER = ["--leader-elect", "--leader-election-namespace", "default", "--leader-elect-lease-duration",
          "2s", "--leader-elect-renew-deadline", "1s", "--leader-elect-retry-period", "0.2s"]


class Scenarios:
    def __init__(self, sim, api, harness, checks):
        self.sim, self.api, self.harness, self.checks = sim, api, harness, checks
        # A drain bounded below stop()'s 20 s wait: the default 30 s is replica-guard's own bound,
        # which a starved process may use up without breaking its contract.
        self.flags = [*outcome.operator_flags(SCALE), "--graceful-shutdown-timeout", "10s"]
        self.numbers = itertools.count()
        self.ports = {}  # operator name -> its metrics port
        self.names = [f"replica-guard-{next(self.numbers)}"]
        self.operators = [self.start(self.names[0])]
        self.guarded = f"all-{outcome.SETUPS[-1]}"
        self.nodes = harness.groups["all"]

    def start(self, name):
        """replica-guard `name` with this scenario's flags, serving metrics on a free port (plain
        HTTP: this test reads gauges, test/ship/prometheus_scrape.py covers the secure endpoint)."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.ports[name] = probe.getsockname()[1]
        return self.sim.start_operator(name, *self.flags, "--metrics-secure=false", "--metrics-bind-address",
                                       f"127.0.0.1:{self.ports[name]}")

    def gauge(self, name, metric):
        """The value of an unlabelled gauge on operator `name`'s /metrics (None if absent)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ports[name]}/metrics", timeout=10) as page:
            for line in page.read().decode().splitlines():
                if line.startswith(metric + " "):
                    return float(line.split()[1])
        return None

    def quiet(self, what, seconds=2 * GRACE + NOT_READY):
        """Checks that no surge comes within `seconds`."""
        since = len(self.harness.surges)
        surges = self.harness.new_surges(since, seconds)
        self.checks.check(f"{what}: no surge", not surges, f"surges: {surges}")

    def restart_operator(self, index, sig):
        stop(self.operators[index], sig)
        self.names[index] = f"replica-guard-{next(self.numbers)}"
        self.operators[index] = self.start(self.names[index])

    def post(self, path, body=None):
        return self.api.request("POST", path, body)

    def real_death(self):
        since = len(self.harness.surges)
        death = self.harness.kill("all", self.nodes[-1])
        surges = self.harness.new_surges(since, NOT_READY + GRACE + 30)
        self.checks.check("a real death surges", bool(surges), "no surge")
        self.harness.revive(death)
        back = self.harness.wait(lambda: self.harness.replicas.get(self.guarded) == NODES, 60 * SCALE + 30)
        self.checks.check("and the surge is scaled back after the node returns", back,
                          f"spec.replicas {self.harness.replicas.get(self.guarded)}")

    def control_plane_outage(self):
        self.post(f"/sim/faults/outage?seconds={2 * LEASE_GRACE:g}")
        self.quiet("a control-plane outage of twice the lease grace", 2 * LEASE_GRACE + 2 * GRACE + NOT_READY)

    def operator_partition(self):
        self.post(f"/sim/faults/partition?userAgent=replica-guard/&seconds={2 * LEASE_GRACE:g}")
        self.quiet("the operators partitioned for twice the lease grace", 2 * LEASE_GRACE + 2 * GRACE + NOT_READY)

    def slow_kubelet(self):
        node = self.nodes[1]
        self.post(f"/sim/kubelets/{node}/delay", {"seconds": RENEW})  # one gap of 2 intervals
        self.quiet(f"{node}'s renewals a whole interval late")
        self.post(f"/sim/kubelets/{node}/delay", {"seconds": 0})

    def dropped_watches(self):
        since = len(self.harness.surges)
        for _ in range(int((2 * GRACE + NOT_READY) / (0.3 * RENEW))):
            self.post("/sim/faults/drop-watches")
            if self.harness.new_surges(since, 0.3 * RENEW):
                break
        self.quiet("watches dropped every 3 s")

    def operator_restart(self):
        self.restart_operator(0, signal.SIGTERM)
        self.quiet("an operator restarted")

    def leader_failover(self):
        stop(self.operators.pop(), signal.SIGTERM)
        self.flags = [*self.flags, *LEADER]
        self.names = [f"replica-guard-{next(self.numbers)}" for _ in range(2)]
        self.operators = [self.start(name) for name in self.names]
        path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/replica-guard"

        def leader():
            """The index of the replica holding the leader Lease, or None."""
            try:
                holder = self.api.get(path)["spec"].get("holderIdentity", "")
            except ApiError:
                return None
            acquired = [re.findall(r"leader election: (\S+) acquired lease", self.sim.log(n)) for n in self.names]
            return next((i for i, ids in enumerate(acquired) if holder in ids), None)
        try:
            wait_for("a leader among the two replicas", lambda: leader() is not None, 30)
        except RuntimeError as e:
            self.checks.check("two replicas elect a leader", False, str(e))
            return
        self.quiet("two replicas starting and electing a leader")
        self.restart_operator(leader(), signal.SIGKILL)
        self.quiet("the leader killed and replaced")

    def majority_dies(self):
        since = len(self.harness.surges)
        victims = self.nodes[:6]
        deaths = [self.harness.kill("all", node) for node in victims]
        surges = self.harness.new_surges(since, NOT_READY + 2 * GRACE + 30 * SCALE)
        self.checks.check("60% of the nodes dead at once: no surge", not surges, f"surges: {surges}")
        events = self.api.get("/api/v1/namespaces/default/events")["items"]
        self.checks.check("and a SurgeSuppressed Event on the guarded Deployment", any(
            e.get("reason") == "SurgeSuppressed" and e["involvedObject"].get("name") == self.guarded for e in events),
            f"reasons: {sorted({e.get('reason') for e in events})}")
        gauges = {name: self.gauge(name, "replica_guard_surge_suppressed") for name in self.names}
        self.checks.check("and replica_guard_surge_suppressed is 1 on the leader", 1.0 in gauges.values(), str(gauges))
        for death in deaths:
            self.harness.revive(death)


@skip_without_kubectl
def main():
    checks = Checks("lying_signals")
    with KubeSim(sys.argv[1], "--nodes", str(NODES), "--time-scale", str(SCALE)) as sim:
        api = KubeApi(sim.kubectl, sim.kubeconfig, sim.work)
        harness = outcome.Outcome(api, SCALE, nodes_per_group=NODES, setups=outcome.SETUPS[-1:])
        try:
            harness.prepare(["all"], outcome.node_names(api))
            scenarios = Scenarios(sim, api, harness, checks)
            for scenario in (scenarios.real_death, scenarios.control_plane_outage, scenarios.operator_partition,
                             scenarios.slow_kubelet, scenarios.dropped_watches,
                             scenarios.operator_restart, scenarios.leader_failover, scenarios.majority_dies):
                print(f"--- {scenario.__name__}", flush=True)
                scenario()
        finally:
            harness.close()
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
