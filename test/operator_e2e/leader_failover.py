#!/usr/bin/env python3
"""Leader election between two replica-guard processes on kube-sim, with short lease timings:
exactly one holds the Lease and writes; after the leader is killed (SIGKILL: no release) the
standby takes over within lease duration + retry period and a margin and does the work; SIGTERM
then drains and exits 0 and releases the Lease. Skips (77) without kubectl.

Usage: leader_failover.py BUILD_DIR"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, skip_without_kubectl, stop, wait_for  # noqa: E402

LEASE, RENEW, RETRY = 2.0, 1.0, 0.2


@skip_without_kubectl
def main():
    build_dir = sys.argv[1]
    checks = Checks("leader_failover.py")
    check, eventually = checks.check, checks.eventually
    sim = KubeSim(build_dir, "--nodes", "2", "--time-scale", "0.05")
    with sim:
        flags = ["--leader-elect", "--leader-election-namespace", "default",
                 "--leader-elect-lease-duration", f"{LEASE:g}s", "--leader-elect-renew-deadline", f"{RENEW:g}s",
                 "--leader-elect-retry-period", f"{RETRY:g}s"]
        operators = {name: sim.start_operator(name, *flags) for name in ("a", "b")}

        def holder():
            lease = sim.get("lease", "replica-guard", "-n", "default")
            return (lease or {}).get("spec", {}).get("holderIdentity", "")

        def identity(name):
            found = re.search(r"leader election: (\S+) acquired lease", sim.log(name))
            return found.group(1) if found else None

        wait_for("a leader", lambda: holder() != "", 30)
        leaders = [name for name in operators if identity(name) == holder()]
        check("exactly one operator acquired the lease", len(leaders) == 1,
              f"holder {holder()!r}, acquired: {[identity(n) for n in operators]}")
        leader = leaders[0]
        standby = "b" if leader == "a" else "a"

        sim.run("apply", "-f", "-", stdin=deployment_manifest("web", 2, {"replica-guard.io/enabled": "true"}))
        desired = lambda: (sim.get("deployment", "web", "-n", "default") or {}).get(
            "metadata", {}).get("annotations", {}).get("replica-guard.io/desired-replicas")
        wait_for("the leader to record desired replicas", lambda: desired() == "2", 30)
        check("the standby wrote nothing",
              "acquired lease" not in sim.log(standby) and "DesiredReplicasRecorded" not in sim.log(standby),
              sim.log(standby)[-2000:])

        operators[leader].kill()  # no chance to release the lease
        operators[leader].wait()
        killed_at = time.monotonic()
        wait_for("the standby to take over", lambda: identity(standby) is not None and holder() == identity(standby),
                 LEASE + RETRY + 30)
        took = time.monotonic() - killed_at
        check(f"the standby took over after {took:.1f}s (lease {LEASE:g}s + retry {RETRY:g}s, margin 10s)",
              took <= LEASE + RETRY + 10)

        sim.run("scale", "deployment", "web", "-n", "default", "--replicas", "3")
        eventually("the new leader adopts a person's change", lambda: desired() == "3", 30)

        code = stop(operators[standby], signal.SIGTERM, timeout=20)  # raises if it does not drain
        check("SIGTERM: exit code 0", code == 0, f"exit code {code}; log tail: {sim.log(standby)[-1500:]}")
        check("SIGTERM: the lease was released", holder() == "", f"holder {holder()!r}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
