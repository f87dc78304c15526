#!/usr/bin/env python3
"""The replica-guard demo, narrated: kube-sim with four nodes and three Deployments (two opted
in), replica-guard against it, then one node's kubelet stops. It prints, with timestamps, what
the cluster and the operator do, and ends with how long each opted-in Deployment was short of
serving replicas, next to how long Kubernetes alone would have left it short.

Timings are Kubernetes' own, compressed by --time-scale (default 0.1: ten times faster).
Usage: scripts/demo.py BUILD_DIR [--time-scale 0.1]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

MANIFEST = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: default
  annotations: {annotations}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: {name}
        image: registry.example/{name}:1.0
"""

START = time.monotonic()


def say(text):
    print(f"[{time.monotonic() - START:6.1f}s] {text}", flush=True)


class Cluster:
    def __init__(self, kubectl, kubeconfig):
        self.kubectl = kubectl
        self.kubeconfig = kubeconfig

    def run(self, *args, stdin=None):
        result = subprocess.run([self.kubectl, "--kubeconfig", self.kubeconfig, *args], input=stdin,
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def items(self, resource):
        return json.loads(self.run("get", resource, "-A", "-o", "json"))["items"]

    def serving(self):
        """Serving replicas per Deployment: Ready pods, not terminating, on Ready nodes."""
        ready_nodes = {n["metadata"]["name"] for n in self.items("nodes")
                       if any(c["type"] == "Ready" and c["status"] == "True"
                              for c in n.get("status", {}).get("conditions", []))}
        counts = {}
        for pod in self.items("pods"):
            app = pod["metadata"].get("labels", {}).get("app")
            ready = any(c["type"] == "Ready" and c["status"] == "True"
                        for c in pod.get("status", {}).get("conditions", []))
            if (app and ready and "deletionTimestamp" not in pod["metadata"]
                    and pod.get("spec", {}).get("nodeName") in ready_nodes):
                counts[app] = counts.get(app, 0) + 1
        return counts

    def replicas(self):
        return {d["metadata"]["name"]: d["spec"].get("replicas", 1) for d in self.items("deployments")}


def wait_for(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    raise RuntimeError(f"timed out waiting for {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--time-scale", type=float, default=0.1)
    args = parser.parse_args()
    scale = args.time_scale
    kubectl = shutil.which("kubectl")
    if not kubectl:
        sys.exit("demo: kubectl not found (scripts/setup.sh --tools installs it into .tools/bin)")
    work = tempfile.mkdtemp(prefix="replica-guard-demo-")
    kubeconfig = os.path.join(work, "kubeconfig")
    grace, eviction, monitor = 30 * scale, 300 * scale, 50 * scale
    say(f"starting kube-sim: 4 nodes, Kubernetes' timings x{scale} (node-monitor grace {monitor:g}s, "
        f"eviction after {eviction:g}s)")
    sim = subprocess.Popen([os.path.join(args.build_dir, "sim/kube-sim"), "--port", "0", "--nodes", "4",
                            "--time-scale", str(scale), "--write-kubeconfig", kubeconfig],
                           stdout=subprocess.PIPE, stderr=open(os.path.join(work, "kube-sim.log"), "w"),
                           text=True)
    operator = None
    try:
        say(sim.stdout.readline().strip())
        cluster = Cluster(kubectl, kubeconfig)
        say(f"starting replica-guard (node grace {grace:g}s, scale-down delay {60 * scale:g}s)")
        operator_log = open(os.path.join(work, "replica-guard.log"), "w")
        operator = subprocess.Popen([os.path.join(args.build_dir, "operator/replica-guard"), "--kubeconfig",
                                     kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
                                     "--node-grace-period", f"{grace:g}s", "--scale-down-delay", f"{60 * scale:g}s"],
                                    stdout=operator_log, stderr=operator_log)
        manifests = "---".join(MANIFEST.format(name=name, replicas=replicas, annotations=annotations)
                               for name, replicas, annotations in [
                                   ("web", 4, '{replica-guard.io/enabled: "true"}'),
                                   ("api", 3, '{replica-guard.io/enabled: "true", replica-guard.io/max-surge: "2"}'),
                                   ("batch", 2, "{}")])
        say("kubectl apply: web (4 replicas) and api (3) opted in, batch (2) not")
        cluster.run("apply", "-f", "-", stdin=manifests)
        wanted = {"web": 4, "api": 3, "batch": 2}
        wait_for("every replica serving", lambda: all(cluster.serving().get(k, 0) >= v for k, v in wanted.items()),
                 60)
        say(f"all serving: {cluster.serving()}")
        pods = cluster.items("pods")
        nodes_of_web = sorted({p["spec"]["nodeName"] for p in pods if p["metadata"]["labels"].get("app") == "web"})
        victim = nodes_of_web[0]
        on_victim = sorted(p["metadata"]["labels"]["app"] for p in pods if p["spec"].get("nodeName") == victim)
        say(f"stopping the kubelet of {victim} (it runs: {', '.join(on_victim)})")
        cluster.run("label", "node", victim, "sim.replica-guard.io/kubelet=stopped")
        failed_at = time.monotonic()

        short_since = {}
        short_total = {"web": 0.0, "api": 0.0}
        seen = set()
        restored = False
        recovered_at = None
        deadline = time.monotonic() + eviction + 120 * scale + 60
        while time.monotonic() < deadline:
            serving, replicas = cluster.serving(), cluster.replicas()
            now = time.monotonic()
            for app in short_total:
                short = serving.get(app, 0) < wanted[app]
                if short and app not in short_since:
                    short_since[app] = now
                    say(f"{app}: short of serving replicas ({serving.get(app, 0)}/{wanted[app]})")
                elif not short and app in short_since:
                    short_total[app] += now - short_since.pop(app)
                    say(f"{app}: serving {serving.get(app, 0)}/{wanted[app]} again")
                if replicas.get(app) != wanted[app] and (app, "up", replicas.get(app)) not in seen:
                    seen.add((app, "up", replicas.get(app)))
                    say(f"{app}: replica-guard set spec.replicas to {replicas.get(app)}")
                if replicas.get(app) == wanted[app] and (app, "up", wanted[app]) not in seen and \
                        any(k[0] == app for k in seen):
                    seen.add((app, "up", wanted[app]))
                    say(f"{app}: scaled back down to {wanted[app]}")
            node_ready = any(c["type"] == "Ready" and c["status"] == "True"
                             for n in cluster.items("nodes") if n["metadata"]["name"] == victim
                             for c in n["status"].get("conditions", []))
            if not node_ready and ("node", "down") not in seen:
                seen.add(("node", "down"))
                say(f"{victim} is no longer Ready (the node lifecycle controller marked it)")
            if not restored and not short_since and time.monotonic() - failed_at > monitor + grace:
                say(f"restarting the kubelet of {victim}")
                cluster.run("label", "node", victim, "sim.replica-guard.io/kubelet-")
                restored = True
                recovered_at = now
            if restored and all(replicas.get(a) == wanted[a] for a in short_total) and \
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
        print(f"Logs: {work}")
        return 0
    finally:
        for process in (operator, sim):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()


if __name__ == "__main__":
    sys.exit(main())
