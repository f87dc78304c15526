#!/usr/bin/env python3
"""SIGTERM under load (issue 19): the leader of two replicas is stopped while its reconciles and
writes are in flight -- nodes have just failed, and every request of its takes 150-300 ms at
the API server -- and

  1. drains: it exits 0 within --graceful-shutdown-timeout (plus a margin) and releases the
     Lease, the standby takes over, and nothing is left half-done: every Deployment converges,
     with its replica-guard.io/applied-replicas record equal to spec.replicas (a scale whose
     record the stopped leader did not write is finished by the new one);
  2. is bounded: a leader whose requests the API server holds (a stalled partition of its
     identity) exits with code 1 once --graceful-shutdown-timeout has passed, not later.

Every write of the run passes the invariant checker. Exit 77 without kubectl.

Usage: sigterm_test.py BUILD_DIR"""
import signal
import sys
import time

import harness
import invariants
from harness import Checks, Sim, skip_without_kubectl, wait_for

TIME_SCALE = 0.05
LEASE, RENEW, RETRY = 2.0, 1.0, 0.2
GRACE = 10.0   # --graceful-shutdown-timeout of the draining leader
SHORT = 2.0    # ... of the leader that cannot drain
MARGIN = 5.0
APPLIED = "replica-guard.io/applied-replicas"


def settled(sim):
    for d in sim.deployments():
        annotations = d["metadata"].get("annotations", {})
        desired, applied = annotations.get(invariants.DESIRED), annotations.get(APPLIED)
        if (desired is None or applied != str(d["spec"]["replicas"]) or d["spec"]["replicas"] != int(desired)
                or d.get("status", {}).get("readyReplicas", 0) != int(desired)):
            return False
    return True


def stop_timed(process, timeout):
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=timeout)
    return code, time.monotonic() - started


@skip_without_kubectl
def main():
    checks = Checks("sigterm_test.py")
    with Sim(sys.argv[1], "--nodes", "6", "--time-scale", f"{TIME_SCALE:g}") as sim:
        base = harness.leader_flags(LEASE, RENEW, RETRY) + harness.operator_flags(TIME_SCALE)
        # "a" (the long grace) leads: "b" starts once it holds the Lease.
        replicas = {"a": sim.session.start_operator("a", *base, "--graceful-shutdown-timeout", f"{GRACE:g}s")}
        name, holder = harness.leader(sim, replicas)
        replicas["b"] = sim.session.start_operator("b", *base, "--graceful-shutdown-timeout", f"{SHORT:g}s")
        for i in range(16):
            sim.create(harness.guarded_deployment(f"load-{i}", 2 + i % 2, "1"))
        wait_for("every Deployment ready and recorded", lambda: settled(sim), 60, interval=0.5)

        # 1. A draining leader.
        sim.faults(latencyMs=150, latencyJitterMs=150, scope={"userAgentContains": f"({holder})"})
        seen = len(sim.writes())
        nodes = sim.nodes()
        for node in nodes[:2]:
            sim.kubelet(node, "stop")
        in_flight = sim.wait_for_write(
            lambda e: e["resource"] == "deployments" and invariants.identity(e["userAgent"]) == holder, 30, seen)
        checks.check("the leader was writing when SIGTERM came", in_flight is not None)
        code, took = stop_timed(replicas["a"], GRACE + MARGIN + 30)
        checks.check(f"a draining leader exits 0 ({took:.1f}s; --graceful-shutdown-timeout {GRACE:g}s)",
                     code == 0 and took <= GRACE + MARGIN, f"exit code {code}; {sim.session.log('a')[-1500:]}")
        checks.check("it released the Lease or another replica holds it", sim.holder() != holder,
                     f"holder {sim.holder()!r}")
        sim.faults()
        for node in nodes[:2]:
            sim.kubelet(node, "start")
        checks.eventually("the new leader finishes everything: every Deployment settles, its record "
                          "written", lambda: settled(sim), 90)

        # 2. A leader that cannot drain: its requests are held by the API server.
        name, holder = harness.leader(sim, ["b"])
        process = replicas["b"]
        sim.admin("POST", "/sim/faults/partition", userAgentContains=f"({holder})", seconds=60, mode="stall")
        sim.kubelet(nodes[2], "stop")  # work for it, which now hangs
        code, took = stop_timed(process, SHORT + MARGIN + 30)
        checks.check(f"a leader that cannot drain exits 1 after {took:.1f}s (--graceful-shutdown-timeout "
                     f"{SHORT:g}s)", code == 1 and SHORT - 0.5 <= took <= SHORT + MARGIN,
                     f"exit code {code}; {sim.session.log(name)[-1500:]}")
        sim.admin("POST", "/sim/faults/heal")
        sim.kubelet(nodes[2], "start")

        report = invariants.check(sim.writes(), lease=(harness.NAMESPACE, harness.LEASE_NAME))
        print(report.summary())
        checks.check("no write broke an invariant", not report.violations,
                     "\n  " + "\n  ".join(report.violations[:20]))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
