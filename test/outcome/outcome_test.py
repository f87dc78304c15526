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
  test/outcome/outcome_test.py BUILD_DIR
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
TOLERATION = {"toleration-0": 0, "toleration-30": 30, "defaults": 300}
EARLY, LATE = 1.0, 3.0            # real-cluster seconds of tolerance before and after


def expected(setup, phase):
    """The window (earliest, latest) of a setup's capacity back after a death at `phase`."""
    if setup == "replica-guard":  # its deadline sweep runs every lease grace / 24
        at = LEASE_GRACE - phase + START
        return at, at + LEASE_GRACE / 24
    return GRACE - phase + PERIOD + TOLERATION[setup] + START, GRACE - phase + 2 * PERIOD + TOLERATION[setup] + START


@skip_without_kubectl
def main():
    scale = 0.1
    checks = Checks("outcome")
    deaths, rows = outcome_bench.run(sys.argv[1], 3, scale)
    print(outcome.table(rows))
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
                low, high = GRACE - phase, GRACE - phase + PERIOD
                checks.check(f"{death.victim} {setup}: dead endpoints gone after {endpoints:.1f}s, "
                             f"expected {low:.1f}-{high:.1f}s", low - EARLY <= endpoints <= high + LATE)
            capacity = death.capacity_back.get(setup)
            if capacity is not None:
                capacity /= scale
                low, high = expected(setup, phase)
                checks.check(f"{death.victim} {setup}: capacity back after {capacity:.1f}s, "
                             f"expected {low:.1f}-{high:.1f}s", low - EARLY <= capacity <= high + LATE)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
