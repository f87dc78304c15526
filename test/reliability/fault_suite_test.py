#!/usr/bin/env python3
"""The operator under API faults while nodes fail and recover (issue 19's fault suite), on
kube-sim with cluster timings scaled by TIME_SCALE. Two replicas with --leader-elect; twelve
guarded Deployments on eight nodes. Phases, each while kubelets are stopped and started:

  errors    30% of requests answered 503 or 429 (alternating), with Retry-After, and every
            request delayed 40-200 ms; watches dropped every few seconds and the watch history
            compacted (resumes get 410);
  stall     every request held for STALL seconds;
  restart   kube-sim's API server down for a while and back with its state (a restart that
            keeps etcd: same objects and uids, resourceVersions go on, watch history empty).

Then the faults end and every node recovers. Required: every write the operator made passes the
invariant checker (test/reliability/invariants.py: bounds, guarded only, only while leading);
every Deployment converges (spec.replicas back at its desired count, all of them ready) within
CONVERGE seconds; no replica exits; each replica's resident memory stays under RSS_LIMIT_KIB and
grows by less than RSS_GROWTH_KIB from the end of the first sync to the end. Exit 77 without
kubectl.

Usage: fault_suite_test.py BUILD_DIR [--stall SECONDS] [--restart SECONDS] [--cycles N]
The soak, outside CI: fault_suite_test.py BUILD_DIR --cycles 70 (over an hour of faults)."""
import argparse
import random
import sys
import threading
import time

import harness
import invariants
from harness import Checks, Sim, skip_without_kubectl, wait_for

TIME_SCALE = 0.05
LEASE, RENEW, RETRY = 4.0, 3.0, 0.5
DEPLOYMENTS, NODES = 12, 8
PHASE = 20.0          # seconds of the errors phase
CONVERGE = 90.0       # seconds after the faults end
RSS_LIMIT_KIB = 128 * 1024
RSS_GROWTH_KIB = 32 * 1024


class Background(threading.Thread):
    """Runs step() every `period` seconds until stopped; counts the steps."""

    def __init__(self, period, step):
        super().__init__(daemon=True)
        self.period, self.step, self.count, self.halt = period, step, 0, threading.Event()
        self.errors = []

    def run(self):
        while not self.halt.wait(self.period):
            try:
                self.step()
                self.count += 1
            except Exception as e:  # a step answered by an injected fault, a restart in progress
                self.errors.append(str(e))

    def stop(self):
        self.halt.set()
        self.join()


def converged(sim):
    for d in sim.deployments():
        desired = d["metadata"].get("annotations", {}).get(invariants.DESIRED)
        ready = d.get("status", {}).get("readyReplicas", 0)
        if desired is None or d["spec"]["replicas"] != int(desired) or ready != int(desired):
            return False
    return True


@skip_without_kubectl
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--stall", type=float, default=30.0)
    parser.add_argument("--restart", type=float, default=3.0, help="seconds the API server is down")
    parser.add_argument("--cycles", type=int, default=1,
                        help="errors, stall and restart phases in turn, this many times (the soak: "
                             "--cycles 70 runs over an hour)")
    args = parser.parse_args()
    rng = random.Random(19)
    checks = Checks("fault_suite_test.py")
    injected = {"drop-watches": 0, "compact": 0, "stall": 0, "restart": 0, "kubelet stops": 0}
    with Sim(args.build_dir, "--nodes", str(NODES), "--time-scale", f"{TIME_SCALE:g}") as sim:
        flags = harness.leader_flags(LEASE, RENEW, RETRY) + harness.operator_flags(TIME_SCALE)
        replicas = {name: sim.session.start_operator(name, *flags) for name in ("a", "b")}
        for i in range(DEPLOYMENTS):
            sim.create(harness.guarded_deployment(f"app-{i}", 2 + i % 3, "1" if i % 2 else "50%"))
        wait_for("every Deployment ready and recorded", lambda: converged(sim), 60, interval=0.5)
        baseline = {name: harness.rss_kib(p.pid) for name, p in replicas.items()}
        peak = dict(baseline)

        def sample_memory():
            for name, process in replicas.items():
                if process.poll() is None:
                    peak[name] = max(peak[name], harness.rss_kib(process.pid))

        nodes = sim.nodes()
        stopped = set()

        def node_churn():
            """At most two nodes down at a time: one fails or one recovers."""
            if stopped and (len(stopped) >= 2 or rng.random() < 0.5):
                node = rng.choice(sorted(stopped))
                sim.kubelet(node, "start")
                stopped.discard(node)
            else:
                node = rng.choice([n for n in nodes if n not in stopped])
                sim.kubelet(node, "stop")
                stopped.add(node)
                injected["kubelet stops"] += 1

        def drop_and_compact():
            sim.admin("POST", "/sim/faults/drop-watches")
            injected["drop-watches"] += 1
            if injected["drop-watches"] % 2 == 0:
                sim.admin("POST", "/sim/faults/compact")
                injected["compact"] += 1

        codes = [503, 429]

        def flip_errors():
            codes.reverse()
            sim.faults(errorRate=0.3, errorCode=codes[0], retryAfterSeconds=1, latencyMs=40, latencyJitterMs=160)

        workers = [Background(1.0, sample_memory), Background(2.5, node_churn),
                   Background(3.0, drop_and_compact), Background(4.0, flip_errors)]
        flip_errors()
        for w in workers:
            w.start()
        faults_started = time.monotonic()
        for cycle in range(args.cycles):
            time.sleep(PHASE)  # the errors phase runs for this long: the faults are the test's input
            sim.admin("POST", "/sim/faults/stall", seconds=args.stall)
            injected["stall"] += 1
            time.sleep(args.stall)  # requests are held for this long; nothing to poll meanwhile
            sim.admin("POST", "/sim/restart", seconds=args.restart)
            injected["restart"] += 1
            wait_for("kube-sim back after its restart", sim.up, args.restart + 30, interval=0.2)
            if args.cycles > 1:
                print(f"cycle {cycle + 1}/{args.cycles}: {sum(injected.values())} faults so far", flush=True)
        for w in workers[1:]:
            w.stop()
        sim.faults()
        for node in nodes:
            sim.kubelet(node, "start")
        faults_ended = time.monotonic()
        lasted = faults_ended - faults_started
        checks.eventually(f"every Deployment converges within {CONVERGE:g}s of the faults' end",
                          lambda: converged(sim), CONVERGE)
        took = time.monotonic() - faults_ended
        workers[0].stop()
        sample_memory()
        end = {name: harness.rss_kib(p.pid) if p.poll() is None else 0 for name, p in replicas.items()}
        for name, process in replicas.items():
            checks.check(f"replica {name} is still running", process.poll() is None,
                         f"exit code {process.poll()}; log tail: {sim.session.log(name)[-1500:]}")
            checks.check(f"replica {name}: resident memory peaked at {peak[name] // 1024} MiB "
                         f"(limit {RSS_LIMIT_KIB // 1024} MiB)", peak[name] < RSS_LIMIT_KIB)
            checks.check(f"replica {name}: memory grew {(end[name] - baseline[name]) // 1024} MiB over the "
                         f"faults (limit {RSS_GROWTH_KIB // 1024} MiB)",
                         end[name] - baseline[name] < RSS_GROWTH_KIB)
        report = invariants.check(sim.writes(), lease=(harness.NAMESPACE, harness.LEASE_NAME))
        print(report.summary())
        print(f"faults injected: 30% 503/429 with Retry-After for {args.cycles} x {PHASE:g}s, latency 40-200 ms, "
              + ", ".join(f"{k}: {v}" for k, v in injected.items())
              + f"; faults for {lasted / 60:.1f} min, converged {took:.1f}s after they ended")
        checks.check("the operator wrote during the faults", report.deployment_writes > DEPLOYMENTS,
                     report.summary())
        checks.check("no write broke an invariant", not report.violations,
                     "\n  " + "\n  ".join(report.violations[:20]))
        if report.violations:
            harness.dump(f"{sim.session.work}/writes.json", sim.recorded)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
