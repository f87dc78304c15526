#!/usr/bin/env python3
"""The outcome harness, fast: three node deaths at time scale 0.1 in one kube-sim with every
setup side by side (scripts/outcome.py), and each observed figure checked against what Kubernetes
1.35's timings make of that death. The node lifecycle controller marks the node's pods NotReady
(and taints the node) the node-monitor grace period after it last saw the Lease renewed, so with
the death `phase` seconds after the last renewal:

  dead endpoints           ~ grace - phase            (every setup: nothing acts before that)
  toleration-0 capacity    ~ grace - phase + start    (evicted at the taint, replaced, started)
  toleration-30 capacity   ~ grace - phase + 30 + start
  defaults capacity        ~ grace - phase + 300 + start
  replica-guard capacity   ~ 24 - phase + start   (the Lease unrenewed for its --node-lease-grace,
                                                  then one more pod started)

each within a few seconds (the API's and the processes' latencies, stretched by 1 / time scale).
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

GRACE, START = 50, 2           # kube-controller-manager --node-monitor-grace-period; pod start
LEASE_GRACE = 24               # replica-guard --node-lease-grace
AFTER_NOT_READY = {"toleration-0": START, "toleration-30": 30 + START, "defaults": 300 + START}
EARLY, LATE = 1.0, 6.0         # real-cluster seconds of tolerance before and after


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
        not_ready = GRACE - death.phase / scale
        for setup in death.affected:
            endpoints = death.endpoints_gone.get(setup)
            if endpoints is not None:
                endpoints /= scale
                checks.check(f"{death.victim} {setup}: dead endpoints {endpoints:.1f}s, "
                             f"expected {not_ready:.1f}s", not_ready - EARLY <= endpoints <= not_ready + LATE)
            capacity = death.capacity_back.get(setup)
            if capacity is not None:
                capacity /= scale
                expected = (LEASE_GRACE - death.phase / scale + START if setup == "replica-guard"
                            else not_ready + AFTER_NOT_READY[setup])
                checks.check(f"{death.victim} {setup}: capacity back {capacity:.1f}s, expected {expected:.1f}s",
                             expected - EARLY <= capacity <= expected + LATE)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
