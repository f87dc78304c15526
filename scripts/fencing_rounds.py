#!/usr/bin/env python3
"""Leader fencing, round after round: 2 or 3 replica-guard replicas with --leader-elect on
kube-sim, guarded Deployments on several nodes whose kubelets fail and recover, and per round
one fault of the leader --

  kill       SIGKILL (no release of the Lease);
  stop       SIGSTOP past the lease duration, then SIGCONT (a VM freeze): it wakes believing
             nothing happened, with writes in flight (some held in a Retry-After wait by
             429s scoped to it just before the freeze);
  partition  the API server answers none of its requests (kube-sim's partition of its
             identity, by the User-Agent replica-guard sends) for a while.

Required in every round: the Lease passes to another replica within lease duration + retry
period + a margin, and -- checked on kube-sim's record of every write by
test/reliability/invariants.py -- no replica writes after its leadership ended, and no write
breaks a guarded Deployment's bounds. Prints the figures (rounds, takeovers, writes checked,
writes stopped at the fence, violations) and exits 1 on any failure, 77 without kubectl.

Usage: fencing_rounds.py BUILD_DIR [--replicas 2] [--rounds 100] [--kinds kill,stop,partition]
       [--deployments 6] [--nodes 6] [--json FILE]"""
import argparse
import json
import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "reliability"))
import harness  # noqa: E402
import invariants  # noqa: E402
from harness import Checks, Sim, skip_without_kubectl, wait_for  # noqa: E402

LEASE, RENEW, RETRY = 2.0, 1.0, 0.2
MARGIN = 3.0  # for a 2-core machine shared with other work
TIME_SCALE = 0.05


class Replicas:
    """The operator's replicas: started and replaced (harness.leader finds the one holding the Lease)."""

    def __init__(self, sim, count, flags):
        self.sim, self.flags, self.started = sim, flags, 0
        self.processes = {}
        for _ in range(count):
            self.start()

    def start(self):
        self.started += 1
        name = f"replica-{self.started}"
        self.processes[name] = self.sim.session.start_operator(name, *self.flags)
        return name

    def fenced(self):
        """Writes stopped at the fence, by every replica started (killed ones too)."""
        return sum(harness.fenced_writes(self.sim.session, f"replica-{n}") for n in range(1, self.started + 1))


def churn(sim, names, rng):
    """Work for the leader: a person rescales one Deployment, one node fails, another recovers."""
    name = rng.choice(names)
    try:
        sim.scale(name, rng.randint(2, 4))
    except harness.ApiError:
        pass  # a fault of this round may answer it
    nodes = sim.nodes()
    sim.kubelet(rng.choice(nodes), "stop")
    sim.kubelet(rng.choice(nodes), "start")


def new_leader(sim, old, bound):
    """Waits for a holder other than `old`; returns how long it took (None past `bound` + 30 s)."""
    started = time.monotonic()
    try:
        wait_for("a new leader", lambda: sim.holder() not in ("", old), bound + 30, interval=0.05)
    except RuntimeError:
        return None
    return time.monotonic() - started


def one_round(sim, replicas, kind, names, rng, figures):
    """One fault of the leader; returns the takeover time (None when there was none)."""
    name, old = harness.leader(sim, replicas.processes)
    process = replicas.processes[name]
    bound = LEASE + RETRY + MARGIN
    if kind == "kill":
        churn(sim, names, rng)
        process.kill()
        took = new_leader(sim, old, bound)
        process.wait()
        del replicas.processes[name]
        replicas.start()
    elif kind == "stop":
        # Freeze it while a write of it waits out a Retry-After, when one does within a second:
        # awake, that write's retry meets the fence.
        sim.faults(errorRate=0.5, errorCode=429, retryAfterSeconds=1,
                   scope={"userAgentContains": f"({old})"})
        seen = len(sim.writes())
        churn(sim, names, rng)
        held = sim.wait_for_write(lambda e: e["code"] == 429 and e["resource"] == "deployments"
                                  and harness.invariants.identity(e["userAgent"]) == old, 1.0, seen)
        process.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        sim.faults()
        figures["frozen with a write held"] += bool(held)
        took = new_leader(sim, old, bound)
        churn(sim, names, rng)  # the new leader's writes, while the old one sleeps
        time.sleep(max(0.0, stopped + LEASE + 0.5 - time.monotonic()))  # past its lease, surely
        process.send_signal(signal.SIGCONT)
        # Awake, it finds its renew deadline long past: it stops leading and campaigns again.
        wait_for(f"{name} to notice it lost the lease", lambda: "stopped leading" in sim.session.log(name),
                 30, interval=0.05)
    else:
        sim.admin("POST", "/sim/faults/partition", userAgentContains=f"({old})", seconds=LEASE * 3)
        churn(sim, names, rng)
        took = new_leader(sim, old, bound)
        wait_for(f"{name} to notice it lost the lease", lambda: "stopped leading" in sim.session.log(name),
                 30, interval=0.05)
        sim.admin("POST", "/sim/faults/heal")
    return took


@skip_without_kubectl
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=100, help="rounds of each kind")
    parser.add_argument("--kinds", default="kill,stop,partition")
    parser.add_argument("--deployments", type=int, default=6)
    parser.add_argument("--nodes", type=int, default=6)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    checks = Checks(f"fencing_rounds.py (replicas {args.replicas}, seed {seed})")
    kinds = [k for k in args.kinds.split(",") if k]
    figures = {"replicas": args.replicas, "seed": seed, "rounds": {}, "takeover_seconds_max": {},
               "frozen with a write held": 0}
    with Sim(args.build_dir, "--nodes", str(args.nodes), "--time-scale", f"{TIME_SCALE:g}") as sim:
        flags = harness.leader_flags(LEASE, RENEW, RETRY) + harness.operator_flags(TIME_SCALE)
        replicas = Replicas(sim, args.replicas, flags)
        names = [f"web-{i}" for i in range(args.deployments)]
        for name in names:
            sim.create(harness.guarded_deployment(name, 2))
        schedule = [kind for _ in range(args.rounds) for kind in kinds]
        slow = []
        for number, kind in enumerate(schedule, 1):
            took = one_round(sim, replicas, kind, names, rng, figures)
            figures["rounds"][kind] = figures["rounds"].get(kind, 0) + 1
            if took is None or took > LEASE + RETRY + MARGIN:
                slow.append(f"round {number} ({kind}): {'no takeover' if took is None else f'{took:.2f}s'}")
            else:
                worst = figures["takeover_seconds_max"].get(kind, 0.0)
                figures["takeover_seconds_max"][kind] = round(max(worst, took), 3)
            if number % 10 == 0:
                print(f"{number}/{len(schedule)} rounds", flush=True)
        for node in sim.nodes():
            sim.kubelet(node, "start")
        report = invariants.check(sim.writes(), lease=(harness.NAMESPACE, harness.LEASE_NAME))
        figures.update(writes_recorded=report.writes, operator_writes=report.operator_writes,
                       deployment_writes_checked=report.deployment_writes, lease_writes=report.lease_writes,
                       fenced_writes=replicas.fenced(), violations=len(report.violations))
        print(report.summary())
        print(json.dumps(figures))
        checks.check(f"every takeover within lease {LEASE:g}s + retry {RETRY:g}s + margin {MARGIN:g}s",
                     not slow, "; ".join(slow))
        checks.check("no write after leadership ended, none outside a Deployment's bounds",
                     not report.violations, "\n  " + "\n  ".join(report.violations[:20]))
        checks.check("the operator's writes were recorded", report.deployment_writes > 0, report.summary())
        if report.violations or os.environ.get("FENCING_DUMP"):
            harness.dump(os.environ.get("FENCING_DUMP") or os.path.join(sim.session.work, "writes.json"),
                         sim.recorded)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(figures, f, indent=1)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
