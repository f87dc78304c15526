#!/usr/bin/env python3
"""The outcome harness, fast: three node deaths at time scale 0.1 in one kube-sim with every
setup side by side (scripts/outcome.py), and each observed figure checked against what Kubernetes
1.35's timings make of that death. With the death `phase` seconds after the kubelet's last Lease
renewal, the node lifecycle controller -- checking every node each monitor period (5 s) -- finds
the node unobserved for its grace period (50 s) at its first pass after grace - phase, marks it
Unknown and its pods NotReady; it queues the NoExecute taint at its next pass, 5 s later, and the
taint evicts the pods whose toleration runs out. So, in real-cluster seconds from the death:

  dead endpoints           grace - phase + [0, 5]          (every setup: nothing acts sooner)
  toleration-0 capacity    grace - phase + [5, 10] + start (evicted, replaced, started)
  toleration-30 capacity   grace - phase + [5, 10] + 30 + start
  defaults capacity        grace - phase + [5, 10] + 300 + start
  replica-guard capacity   lease grace - phase + [0, 1] + start (its --node-lease-grace, 24 s,
                                                           checked every twenty-fourth of it)

each within a second before and a few after (the API's and the processes' latencies, stretched
by 1 / time scale).

With --actions, replica-guard runs with --taint-suspect-nodes and --mark-suspect-pods-not-ready:
its dead endpoints are then gone when its pods are marked NotReady, right after the sweep that
finds the node suspect -- lease grace - phase + [0, 1], never more than the grace + 3 s -- and
every other figure is as without them. No pod may be bound to a node while it carries the
suspect taint. And two false suspicions of a live node (a slow kubelet, its Lease renewals 2 s
past the grace): its guarded pods are marked and stay NotReady at most until the kubelet's next
pod status sync (10 s), no other setup's pod loses Ready.
  test/outcome/outcome_test.py BUILD_DIR [--actions]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "outcome"))
from kube_sim_session import Checks, skip_without_kubectl  # noqa: E402
import outcome  # noqa: E402
import outcome_bench  # noqa: E402

GRACE, PERIOD, START = 50, 5, 2   # --node-monitor-grace-period, --node-monitor-period; pod start
LEASE_GRACE = 24                  # replica-guard --node-lease-grace
STATUS_SYNC = 10                  # the kubelet's pod status sync period
ACTIONS = ["--taint-suspect-nodes", "--mark-suspect-pods-not-ready"]
TOLERATION = {"toleration-0": 0, "toleration-30": 30, "defaults": 300}
EARLY, LATE = 1.0, 3.0            # real-cluster seconds of tolerance before and after


def expected(setup, phase):
    """The window (earliest, latest) of a setup's capacity back after a death at `phase`."""
    if setup == "replica-guard":  # its deadline sweep runs every lease grace / 24
        at = LEASE_GRACE - phase + START
        return at, at + LEASE_GRACE / 24
    return GRACE - phase + PERIOD + TOLERATION[setup] + START, GRACE - phase + 2 * PERIOD + TOLERATION[setup] + START


def dead_endpoints_window(setup, phase, actions):
    """The window (earliest, latest) of a setup's dead endpoints after a death at `phase`."""
    if actions and setup == "replica-guard":  # marked right after the sweep that finds it suspect
        return LEASE_GRACE - phase, LEASE_GRACE - phase + LEASE_GRACE / 24
    return GRACE - phase, GRACE - phase + PERIOD


def check_false_positive(checks, false_positive):
    """The cost of a false suspicion: replica-guard's pods NotReady for one status sync at most,
    and marked at all (else nothing was measured); nobody else's touched."""
    spans = false_positive["not_ready"]
    guarded = spans.get("replica-guard", [])
    checks.check(f"false suspicions of {false_positive['node']}: replica-guard's pods were marked NotReady",
                 len(guarded) > 0, str(spans))
    checks.check(f"... and each was Ready again within one kubelet status sync ({STATUS_SYNC}s): {guarded}",
                 all(s is not None and s <= STATUS_SYNC + LATE for s in guarded), str(spans))
    others = {s: v for s, v in spans.items() if s != "replica-guard" and v}
    checks.check("... no other setup's pod lost Ready", not others, str(others))


@skip_without_kubectl
def main():
    scale = 0.1
    actions = "--actions" in sys.argv[2:]
    checks = Checks("outcome" + (" (actions)" if actions else ""))
    deaths, rows, extras = outcome_bench.run(sys.argv[1], 3, scale, ACTIONS if actions else (),
                                             false_positives=2 if actions else 0)
    print(outcome.table(rows))
    checks.check("no pod was bound to a node while it carried the suspect taint",
                 not extras["tainted_bindings"], str(extras["tainted_bindings"]))
    if actions:
        check_false_positive(checks, extras["false_positive"])
    for setup in outcome.SETUPS:
        checks.check(f"{setup}: every death touched it and was measured",
                     rows[setup]["deaths"] == len(deaths) and not rows[setup]["capacity_back"]["missing"]
                     and not rows[setup]["dead_endpoints"]["missing"], str(rows[setup]))
    for death in deaths:
        if not checks.check(f"{death.victim}: kube-sim says when its Lease was last renewed",
                            death.phase is not None and 0 <= death.phase / scale <= 10.4 + LATE):
            continue
        phase = death.phase / scale
        for setup in death.affected:
            endpoints = death.endpoints_gone.get(setup)
            if endpoints is not None:
                endpoints /= scale
                low, high = dead_endpoints_window(setup, phase, actions)
                checks.check(f"{death.victim} {setup}: dead endpoints gone after {endpoints:.1f}s, "
                             f"expected {low:.1f}-{high:.1f}s", low - EARLY <= endpoints <= high + LATE)
                if actions and setup == "replica-guard":
                    checks.check(f"{death.victim} {setup}: ... within the lease grace + 3 s",
                                 endpoints <= LEASE_GRACE + 3)
            capacity = death.capacity_back.get(setup)
            if capacity is not None:
                capacity /= scale
                low, high = expected(setup, phase)
                checks.check(f"{death.victim} {setup}: capacity back after {capacity:.1f}s, "
                             f"expected {low:.1f}-{high:.1f}s", low - EARLY <= capacity <= high + LATE)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
