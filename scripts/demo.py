#!/usr/bin/env python3
"""The replica-guard demo, narrated: kube-sim with four nodes and three Deployments (two opted
in), replica-guard against it, then one node's kubelet stops. It prints, with timestamps, what
the cluster and the operator do, and ends with how long each opted-in Deployment was short of
serving replicas, next to how long Kubernetes alone would have left it short.

Timings are Kubernetes' own, compressed by --time-scale (default 0.1: ten times faster).
Usage: scripts/demo.py BUILD_DIR [--time-scale 0.1]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube_sim_session import KubeSim, condition, deployment_manifest, wait_for  # noqa: E402

START = time.monotonic()


def say(text):
    print(f"[{time.monotonic() - START:6.1f}s] {text}", flush=True)


def ready(obj):
    return condition(obj, "Ready") == "True"


def serving(sim):
    """Serving replicas per Deployment: Ready pods, not terminating, on Ready nodes."""
    ready_nodes = {n["metadata"]["name"] for n in sim.items("nodes") if ready(n)}
    counts = {}
    for pod in sim.items("pods"):
        app = pod["metadata"].get("labels", {}).get("app")
        if (app and ready(pod) and "deletionTimestamp" not in pod["metadata"]
                and pod.get("spec", {}).get("nodeName") in ready_nodes):
            counts[app] = counts.get(app, 0) + 1
    return counts


def replicas(sim):
    return {d["metadata"]["name"]: d["spec"].get("replicas", 1) for d in sim.items("deployments")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--time-scale", type=float, default=0.1)
    args = parser.parse_args()
    scale = args.time_scale
    grace, eviction, monitor = 30 * scale, 300 * scale, 50 * scale
    say(f"starting kube-sim: 4 nodes, Kubernetes' timings x{scale} (node-monitor grace {monitor:g}s, "
        f"eviction after {eviction:g}s)")
    try:
        sim = KubeSim(args.build_dir, "--nodes", "4", "--time-scale", str(scale))
    except RuntimeError as e:
        sys.exit(f"demo: {e}")
    with sim:
        say(sim.banner)
        say(f"starting replica-guard (node grace {grace:g}s, scale-down delay {60 * scale:g}s)")
        sim.start_operator("replica-guard", "--node-grace-period", f"{grace:g}s",
                           "--scale-down-delay", f"{60 * scale:g}s")
        say("kubectl apply: web (4 replicas) and api (3) opted in, batch (2) not")
        for name, count, annotations in [
                ("web", 4, {"replica-guard.io/enabled": "true"}),
                ("api", 3, {"replica-guard.io/enabled": "true", "replica-guard.io/max-surge": "2"}),
                ("batch", 2, {})]:
            sim.run("apply", "-f", "-", stdin=deployment_manifest(name, count, annotations))
        wanted = {"web": 4, "api": 3, "batch": 2}
        wait_for("every replica serving", lambda: all(serving(sim).get(k, 0) >= v for k, v in wanted.items()),
                 60, interval=0.25)
        say(f"all serving: {serving(sim)}")
        pods = sim.items("pods")
        nodes_of_web = sorted({p["spec"]["nodeName"] for p in pods if p["metadata"]["labels"].get("app") == "web"})
        victim = nodes_of_web[0]
        on_victim = sorted(p["metadata"]["labels"]["app"] for p in pods if p["spec"].get("nodeName") == victim)
        guarded_on_victim = sorted({app for app in on_victim if app in ("web", "api")})
        say(f"stopping the kubelet of {victim} (it runs: {', '.join(on_victim)})")
        sim.run("label", "node", victim, "sim.replica-guard.io/kubelet=stopped")
        failed_at = time.monotonic()

        short_since = {}
        short_total = {"web": 0.0, "api": 0.0}
        scaled_up = set()
        seen = set()
        restored = False
        recovered_at = None
        deadline = time.monotonic() + eviction + 120 * scale + 60
        while time.monotonic() < deadline:
            now_serving, now_replicas = serving(sim), replicas(sim)
            now = time.monotonic()
            for app in short_total:
                short = now_serving.get(app, 0) < wanted[app]
                if short and app not in short_since:
                    short_since[app] = now
                    say(f"{app}: short of serving replicas ({now_serving.get(app, 0)}/{wanted[app]})")
                elif not short and app in short_since:
                    short_total[app] += now - short_since.pop(app)
                    say(f"{app}: serving {now_serving.get(app, 0)}/{wanted[app]} again")
                if now_replicas.get(app) != wanted[app] and (app, now_replicas.get(app)) not in seen:
                    seen.add((app, now_replicas.get(app)))
                    scaled_up.add(app)
                    say(f"{app}: replica-guard set spec.replicas to {now_replicas.get(app)}")
                if now_replicas.get(app) == wanted[app] and app in scaled_up and (app, wanted[app]) not in seen:
                    seen.add((app, wanted[app]))
                    say(f"{app}: scaled back down to {wanted[app]}")
            node_ready = any(ready(n) for n in sim.items("nodes") if n["metadata"]["name"] == victim)
            if not node_ready and ("node", "down") not in seen:
                seen.add(("node", "down"))
                say(f"{victim} is no longer Ready (the node lifecycle controller marked it)")
            if not restored and not short_since and time.monotonic() - failed_at > monitor + grace:
                say(f"restarting the kubelet of {victim}")
                sim.run("label", "node", victim, "sim.replica-guard.io/kubelet-")
                restored = True
                recovered_at = now
            if restored and all(now_replicas.get(a) == wanted[a] for a in short_total) and \
                    now - recovered_at > 60 * scale + 2:
                break
            time.sleep(0.25)
        for app, since in short_since.items():
            short_total[app] += time.monotonic() - since
        print()
        print("Summary (real-cluster seconds = demo seconds / time scale):")
        without = eviction + 2 * scale  # from NotReady: the toleration runs out, then a pod restarts
        for app, total in short_total.items():
            print(f"  {app:6s} short of serving replicas for {total:5.1f}s with replica-guard "
                  f"(~{total / scale:5.0f}s at real timings); Kubernetes alone: ~{without:5.1f}s "
                  f"(~{without / scale:5.0f}s: the 300 s toleration, then a restart)")
        missed = [app for app in guarded_on_victim if app not in scaled_up]
        if missed or not restored or any(app in short_since for app in short_total):
            print(f"demo: FAILED: not scaled up: {missed}; node restored: {restored}; "
                  f"still short: {sorted(short_since)}")
            sim.close(failed=True)  # keeps kube-sim's and the operator's logs, and says where
            return 1
        return 0


if __name__ == "__main__":
    sys.exit(main())
