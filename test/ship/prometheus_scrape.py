#!/usr/bin/env python3
"""The real Prometheus scrapes replica-guard during a node failure: kube-sim with three nodes,
replica-guard against it with /metrics on 127.0.0.1, and a Prometheus (from a temporary
directory, on 127.0.0.1 only) scraping it every second. One node's kubelet stops; Prometheus'
HTTP API must then show the watch events grown, a successful scale-up PATCH counted and the
workqueue depth series present. `promtool check metrics` must accept the /metrics text, before
and after the failure. Skips (77) without kubectl, prometheus or promtool.

Usage: prometheus_scrape.py BUILD_DIR"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, wait_for  # noqa: E402

SKIP = 77
JOB = "replica-guard"
SCRAPE_CONFIG = """global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: {job}
    static_configs:
      - targets: ["{target}"]
"""


def tools():
    """kubectl, prometheus and promtool: RG_TOOLS_BIN (the repository's .tools/bin) first, then
    PATH; None when one is missing."""
    tools_bin = os.environ.get("RG_TOOLS_BIN")
    path = os.pathsep.join(filter(None, [tools_bin, os.environ.get("PATH", "")]))
    found = {name: shutil.which(name, path=path) for name in ("kubectl", "prometheus", "promtool")}
    missing = [name for name, where in found.items() if not where]
    if missing:
        print(f"SKIP: {', '.join(missing)} not found (scripts/setup.sh --tools installs kubectl; "
              "apt-get install --no-install-recommends prometheus gives prometheus and promtool)")
        return None
    return found


def free_port():
    """A port free on 127.0.0.1 right now (Prometheus does not report the port it got for 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


class Prometheus:
    """A Prometheus process scraping `target` every second, with its TSDB in a temporary directory;
    a context manager that stops it and removes the directory."""

    def __init__(self, binary, target):
        self.work = tempfile.mkdtemp(prefix="rg-prometheus-")
        config = os.path.join(self.work, "prometheus.yml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(SCRAPE_CONFIG.replace("{job}", JOB).replace("{target}", target))
        self.address = f"127.0.0.1:{free_port()}"
        self.log_path = os.path.join(self.work, "prometheus.log")
        self.process = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={os.path.join(self.work, 'data')}",
             f"--web.listen-address={self.address}"],
            stdout=subprocess.DEVNULL, stderr=open(self.log_path, "w"))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def log(self):
        with open(self.log_path, encoding="utf-8") as f:
            return f.read()

    def ready(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"prometheus exited ({self.process.returncode}):\n{self.log()[-2000:]}")
        try:
            http_get(f"http://{self.address}/-/ready")
            return True
        except OSError:
            return False

    def query(self, expr):
        """The instant vector of `expr` as {frozenset(labels): value}."""
        url = f"http://{self.address}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            answer = json.loads(http_get(url))
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"query {expr}: HTTP {e.code}: {e.read().decode()}") from e
        if answer.get("status") != "success" or answer["data"]["resultType"] != "vector":
            raise RuntimeError(f"query {expr}: {answer}")
        return {frozenset(r["metric"].items()): float(r["value"][1]) for r in answer["data"]["result"]}

    def scalar(self, expr):
        """The value of a query expected to give one series; None while it gives none."""
        result = self.query(expr)
        return next(iter(result.values())) if len(result) == 1 else None


def promtool_check(checks, promtool, text, when):
    result = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True,
                            timeout=60)
    checks.check(f"promtool check metrics passes on /metrics {when}", result.returncode == 0,
                 f"exit {result.returncode}: {result.stdout}{result.stderr}")


def web(sim):
    return sim.get("deployment", "web", "-n", "default") or {}


def opt_in(sim, checks):
    """Opts a Deployment in and waits for its pods on two nodes or more; returns the node to stop
    and how many of the pods it runs, or None when replica-guard did not take the Deployment."""
    sim.run("apply", "-f", "-", stdin=deployment_manifest(
        "web", 4, {"replica-guard.io/enabled": "true", "replica-guard.io/max-surge": "100%"}))
    if not checks.eventually("replica-guard records the desired replicas",
                             lambda: web(sim).get("metadata", {}).get("annotations", {}).get(
                                 "replica-guard.io/desired-replicas") == "4", 30):
        return None

    def web_pods():
        return [p for p in sim.items("pods") if p["metadata"].get("labels", {}).get("app") == "web"]

    wait_for("the pods scheduled on two nodes or more",
             lambda: len({p["spec"].get("nodeName") for p in web_pods() if p["spec"].get("nodeName")}) >= 2, 30)
    pods = web_pods()
    victim = next(p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName"))
    return victim, sum(1 for p in pods if p["spec"].get("nodeName") == victim)


def main():
    build_dir = sys.argv[1]
    found = tools()
    if not found:
        return SKIP
    checks = Checks("prometheus_scrape.py")
    with KubeSim(build_dir, "--nodes", "3", "--time-scale", "0.05", kubectl=found["kubectl"]) as sim:
        sim.start_operator("replica-guard", "--metrics-bind-address", "127.0.0.1:0",
                           "--node-grace-period=1s", "--scale-down-delay=1s")
        # The operator binds port 0 and logs the port it got: no race with other tests for a port.
        wait_for("replica-guard serving /metrics and its caches synced",
                 lambda: "caches synced" in sim.log("replica-guard")
                 and re.search(r"serving address=\S+ endpoints=/metrics", sim.log("replica-guard")), 30)
        target = re.search(r"serving address=(\S+) endpoints=/metrics", sim.log("replica-guard")).group(1)
        metrics_url = f"http://{target}/metrics"
        promtool_check(checks, found["promtool"], http_get(metrics_url), "before the failure")

        with Prometheus(found["prometheus"], target) as prom:
            wait_for("prometheus ready", prom.ready, 60)
            if not checks.eventually(f"prometheus scrapes {target} (up == 1)",
                                     lambda: prom.scalar(f'up{{job="{JOB}"}}') == 1, 30):
                print(prom.log()[-2000:])
                return checks.result()
            events = f'sum(reflector_watch_events_total{{job="{JOB}"}})'
            wait_for("a scraped sample of reflector_watch_events_total",
                     lambda: prom.scalar(events) is not None, 30)
            events_before = prom.scalar(events)
            patches = f'replica_guard_scale_patches_total{{job="{JOB}",direction="up",result="success"}}'
            patches_before = prom.scalar(patches) or 0

            node = opt_in(sim, checks)
            if node is None:
                return checks.result()
            victim, stranded = node
            deployment_events = (f'sum(reflector_watch_events_total{{job="{JOB}",resource="deployments",'
                                 'type="MODIFIED"})')
            deployment_events_before = prom.scalar(deployment_events) or 0
            sim.run("label", "node", victim, "sim.replica-guard.io/kubelet=stopped")
            scaled = checks.eventually(f"scales up for {stranded} pod(s) stranded on {victim}",
                                       lambda: web(sim).get("spec", {}).get("replicas") == 4 + stranded, 60)

            # Prometheus sees what happened at its next scrape (every second).
            checks.eventually("Prometheus: reflector_watch_events_total grew",
                              lambda: (prom.scalar(events) or 0) > events_before, 30)
            checks.eventually("Prometheus: MODIFIED deployments watch events grew after the kubelet stopped",
                              lambda: (prom.scalar(deployment_events) or 0) > deployment_events_before, 30)
            for kind in ("nodes", "pods", "deployments"):
                of_kind = f'sum(reflector_watch_events_total{{job="{JOB}",resource="{kind}"}})'
                checks.eventually(f"Prometheus: watch events of {kind} counted",
                                  lambda of_kind=of_kind: (prom.scalar(of_kind) or 0) > 0, 30)
            if scaled:
                checks.eventually("Prometheus: scale patches up with success >= 1 after the failure",
                                  lambda: (prom.scalar(patches) or 0) >= patches_before + 1, 30)
            depth = prom.query(f'workqueue_depth{{job="{JOB}",name="replica-guard"}}')
            checks.check("Prometheus: the workqueue_depth series of the replica-guard queue is present",
                         len(depth) == 1 and all(v >= 0 for v in depth.values()), str(depth))
            adds = f'workqueue_adds_total{{job="{JOB}",name="replica-guard"}}'
            checks.eventually("Prometheus: workqueue_adds_total counted the reconciles",
                              lambda: (prom.scalar(adds) or 0) > 0, 30)
            stayed_up = prom.scalar(f'min_over_time(up{{job="{JOB}"}}[1m])')
            checks.check("Prometheus: every scrape of the target succeeded", stayed_up == 1,
                         f"min_over_time(up[1m]) = {stayed_up}")

        promtool_check(checks, found["promtool"], http_get(metrics_url), "after the failure")
        if checks.failed:
            print(f"Logs: {sim.work}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
