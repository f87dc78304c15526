#!/usr/bin/env python3
"""The replica-guard demo, narrated: kube-sim with four nodes and four Deployments of four
replicas side by side -- one pod of each on every node --: `web-defaults` as Kubernetes leaves it,
`web-toleration-30` and `web-toleration-0` with the pod-template setting a user can choose
instead, and `web-replica-guard` opted in to replica-guard. Then one node's kubelet dies. It
prints, with timestamps, what the cluster and the operator do, and ends with how long after the
death each Deployment had its capacity back and its dead endpoints gone (the outcome harness's
comparison, scripts/outcome.py, for this one death).

Timings are Kubernetes' own, compressed by --time-scale (default 0.1: ten times faster).
--plot PNG draws the observed timeline (serving replicas, Ready in the API and spec.replicas of
each Deployment from the death on; scripts/timeline_plot.py, needs python3-matplotlib).
Usage: scripts/demo.py BUILD_DIR [--time-scale 0.1] [--plot docs/img/node-failure-timeline.png]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outcome  # noqa: E402
from kube_api import KubeApi  # noqa: E402
from kube_sim_session import KubectlMissing, KubeSim, condition  # noqa: E402

START = time.monotonic()
NODES = 4
GUARDED = "web-replica-guard"


def say(text):
    print(f"[{time.monotonic() - START:6.1f}s] {text}", flush=True)


class Narrator:
    """Prints what changes -- the dead node's Ready condition, the guarded Deployment's
    spec.replicas, each setup's figures as the harness observes them -- each once."""

    def __init__(self, api, harness, death, scale):
        self.api, self.harness, self.death, self.scale = api, harness, death, scale
        self.seen = set()
        self.node_ready, self.replicas = "True", NODES

    def guarded_replicas(self):
        return self.api.get(f"/apis/apps/v1/namespaces/{outcome.NAMESPACE}/deployments/{GUARDED}")["spec"]["replicas"]

    def step(self):
        node = self.api.get(f"/api/v1/nodes/{self.death.victim}")
        ready = condition(node, "Ready")
        if ready != self.node_ready:
            self.node_ready = ready
            say(f"{self.death.victim} is Ready={ready} now" +
                (" (the node lifecycle controller marked it)" if ready != "True" else ""))
        replicas = self.guarded_replicas()
        if replicas != self.replicas:
            self.replicas = replicas
            say(f"{GUARDED}: replica-guard set spec.replicas to {replicas}")
        with self.harness.lock:
            figures = [(s, "capacity back", v) for s, v in self.death.capacity_back.items()] + \
                      [(s, "no dead endpoints", v) for s, v in self.death.endpoints_gone.items()]
        for setup, what, value in sorted(figures, key=lambda f: f[2]):
            if (setup, what) not in self.seen:
                self.seen.add((setup, what))
                say(f"web-{setup}: {what}, {value / self.scale:.1f}s after the death (real-cluster seconds)")

    def until(self, done, timeout):
        """Narrates until done() holds (then once more) or `timeout` seconds pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            finished = done()
            self.step()
            if finished:
                return True
            time.sleep(0.1)
        return False


def plot(death, scale, path):
    """Draws the death's observed timeline (the harness's watches have stopped) into `path` and
    prints each setup's course, e.g. "serving 4->3->4"."""
    import timeline_plot
    timeline = outcome.real_seconds(death.timeline, scale)
    timeline_plot.draw_timeline(timeline, NODES, path,
                                title=f"The kubelet of one of {NODES} nodes dies (kube-sim, observed)")
    print(f"wrote {path}")

    def course(samples, field):
        values = [s[field] for s in samples]
        return "->".join(str(v) for i, v in enumerate(values) if i == 0 or v != values[i - 1])
    for setup, samples in timeline.items():
        print(f"timeline web-{setup}: serving {course(samples, 'serving')}, Ready in the API "
              f"{course(samples, 'ready_in_api')}, spec.replicas {course(samples, 'replicas')}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--time-scale", type=float, default=0.1)
    parser.add_argument("--plot", metavar="PNG", help="draw the observed timeline into this file")
    args = parser.parse_args()
    if args.plot:
        try:
            import timeline_plot  # noqa: F401 -- fail before the demo runs, not after
        except ImportError as e:
            sys.exit(f"demo: --plot needs matplotlib ({e}); install python3-matplotlib (scripts/setup.sh)")
    scale = args.time_scale
    say(f"starting kube-sim: {NODES} nodes, Kubernetes' timings x{scale:g} (node-monitor grace "
        f"{50 * scale:g}s, default toleration {300 * scale:g}s)")
    try:
        sim = KubeSim(args.build_dir, "--nodes", str(NODES), "--time-scale", str(scale))
    except KubectlMissing as e:
        print(f"demo: cannot run: {e}")
        return 77  # as the `demo` test: skipped, not failed (scripts/demo.sh installs kubectl)
    except RuntimeError as e:
        sys.exit(f"demo: {e}")
    with sim:
        say(sim.banner)
        flags = outcome.operator_flags(scale)
        say(f"starting replica-guard ({' '.join(flags)})")
        sim.start_operator("replica-guard", *flags)
        api = KubeApi(sim.kubectl, sim.kubeconfig, sim.work)
        harness = outcome.Outcome(api, scale, nodes_per_group=NODES)
        try:
            say("creating web-defaults, web-toleration-30, web-toleration-0 and web-replica-guard "
                f"(opted in), {NODES} replicas each, one pod on every node")
            harness.prepare(["web"], outcome.node_names(api))
            say("all 16 pods Ready")
            death = harness.kill("web")
            say(f"the kubelet of {death.victim} died" + (
                f", {death.phase / scale:.1f}s after it last renewed its Lease" if death.phase is not None else ""))
            narrator = Narrator(api, harness, death, scale)
            if narrator.until(death.done, (50 + 300 + 2) * 1.5 * scale + 30):
                say(f"restarting the kubelet of {death.victim}")
                harness.revive(death)
                narrator.until(lambda: narrator.node_ready == "True" and narrator.replicas == NODES,
                               60 * scale + 30)
        finally:
            harness.close()
        rows = outcome.summarize([death], scale)
        print()
        print(f"Summary: one node death, in real-cluster seconds from the death (demo seconds / {scale:g}):")
        print(outcome.table(rows))
        print("(capacity back: the desired Ready pods on live nodes again; dead endpoints: pods on the dead "
              "node still Ready in the API, so Services still route to them)")
        if args.plot:
            plot(death, scale, args.plot)
        missing = [s for s in outcome.SETUPS if s not in death.capacity_back or s not in death.endpoints_gone]
        if missing or not death.affected == set(outcome.SETUPS):
            print(f"demo: FAILED: not measured: {missing}; setups on the dead node: {sorted(death.affected)}")
            sim.close(failed=True)  # keeps kube-sim's and the operator's logs, and says where
            return 1
        return 0


if __name__ == "__main__":
    sys.exit(main())
