#!/usr/bin/env python3
"""The real Prometheus scrapes replica-guard's secure /metrics during a node failure: kube-sim
(RBAC) with three nodes, replica-guard against it serving /metrics over HTTPS on 127.0.0.1 (the
default --metrics-secure, self-signed certificate), and a Prometheus (from a temporary directory,
on 127.0.0.1 only) scraping it every second as a kubebuilder-style ServiceMonitor does: scheme
https, the token of a ServiceAccount bound to manifests/22-metrics-reader.yaml's ClusterRole as
`authorization`, insecure_skip_verify. That job is up; a job with a ServiceAccount the role is not
bound to (403) and one without a token (401) are down. One node's kubelet stops; Prometheus' HTTP
API must then show the watch events grown, a successful scale-up PATCH counted and the workqueue
series present. `promtool check metrics` must accept the /metrics text, before and after the
failure. Last, made-up tokens at a high rate all get 401, and replica-guard sends no more
TokenReviews than its --metrics-review-qps cap allows. Skips (77) without kubectl, prometheus or
promtool.

Usage: prometheus_scrape.py BUILD_DIR"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, wait_for  # noqa: E402

SKIP = 77
JOB = "replica-guard"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
REVIEW_QPS = 2  # --metrics-review-qps: burst twice that
GLOBAL = """global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
"""


def scrape_job(name, target, token_file=None):
    """A job scraping the secure endpoint as the chart's ServiceMonitor does (https, the token
    as `authorization`, the self-signed certificate unverified)."""
    job = (f"  - job_name: {name}\n    scheme: https\n    tls_config:\n      insecure_skip_verify: true\n"
           f"    static_configs:\n      - targets: [\"{target}\"]\n")
    if token_file:
        job += f"    authorization:\n      credentials_file: {token_file}\n"
    return job


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


UNVERIFIED = ssl._create_unverified_context()  # replica-guard's self-signed certificate


def https_get(url, token=None):
    """(status, body) of a GET to the secure endpoint, with `token` as the bearer token."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10, context=UNVERIFIED) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def sample(text, name, labels):
    """The value of series `name{labels}` in Prometheus text (0 when absent)."""
    wanted = "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
    for line in text.splitlines():
        if line.startswith(name + "{"):
            series, value = line.rsplit(" ", 1)
            got = dict(part.split("=", 1) for part in series[len(name) + 1:-1].split(","))
            if "{" + ",".join(f"{k}={v}" for k, v in sorted(got.items())) + "}" == wanted:
                return float(value)
    return 0.0


def scrapers(sim):
    """ServiceAccounts in default: "prometheus", bound to the shipped metrics-reader ClusterRole,
    and "nobody", not bound. Their tokens, in files in the kube-sim work directory."""
    sim.run("apply", "-f", os.path.join(SOURCE, "manifests", "22-metrics-reader.yaml"))
    tokens = {}
    for name in ("prometheus", "nobody"):
        sim.run("create", "serviceaccount", name, "-n", "default")
        tokens[name] = os.path.join(sim.work, f"{name}.token")
        with open(tokens[name], "w", encoding="utf-8") as f:
            f.write(sim.run("create", "token", name, "-n", "default", "--duration=1h").strip())
    sim.run("create", "clusterrolebinding", "prometheus-metrics-reader",
            "--clusterrole=replica-guard-metrics-reader", "--serviceaccount=default:prometheus")
    return tokens


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def flood(checks, metrics_url, token):
    """Made-up tokens as fast as one client sends them: all 401, and no more TokenReviews than the
    cap (burst 2 x REVIEW_QPS, then REVIEW_QPS a second) allows over the time it took."""
    reviewed = {"review": "token", "outcome": "reviewed"}
    name = "replica_guard_metrics_auth_reviews_total"
    status, before = https_get(metrics_url, token)
    checks.check("the scraper's token still reads /metrics before the flood", status == 200, str(status))
    started = time.monotonic()
    answers = [https_get(metrics_url, f"made-up-{i}")[0] for i in range(150)]
    elapsed = time.monotonic() - started
    checks.check("150 made-up tokens: every answer is 401", set(answers) == {401}, str(set(answers)))
    status, after = https_get(metrics_url, token)
    if status != 200:
        checks.check("the scraper's cached token reads /metrics after the flood", False, str(status))
        return
    sent = sample(after, name, reviewed) - sample(before, name, reviewed)
    cap = 2 * REVIEW_QPS + REVIEW_QPS * (elapsed + 1)
    checks.check(f"TokenReviews sent during the flood ({sent:.0f}) within the cap ({cap:.0f} in {elapsed:.1f}s)",
                 0 < sent <= cap, f"{sent} > {cap}")
    throttled = sample(after, name, {"review": "token", "outcome": "throttled"})
    checks.check("the rest were refused unreviewed (outcome throttled)", throttled >= 150 - cap, str(throttled))


class Prometheus:
    """A Prometheus process running scrape `jobs` every second, with its TSDB in a temporary directory;
    a context manager that stops it and removes the directory."""

    def __init__(self, binary, jobs):
        self.work = tempfile.mkdtemp(prefix="rg-prometheus-")
        config = os.path.join(self.work, "prometheus.yml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(GLOBAL + "".join(jobs))
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


def plain_http_answers(target):
    """Whether the metrics port answers plain HTTP (it must not: TLS only)."""
    try:
        http_get(f"http://{target}/metrics")
        return True
    except (OSError, urllib.error.URLError):
        return False


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
        tokens = scrapers(sim)
        sim.start_operator("replica-guard", "--metrics-bind-address", "127.0.0.1:0",
                           "--health-probe-bind-address", "127.0.0.1:0", f"--metrics-review-qps={REVIEW_QPS}",
                           "--node-grace-period=1s", "--scale-down-delay=1s")
        # The operator binds port 0 and logs the port it got: no race with other tests for a port.
        serving = r"serving address=(\S+) endpoints=/metrics scheme=https"
        wait_for("replica-guard serving /metrics over HTTPS and its caches synced",
                 lambda: "caches synced" in sim.log("replica-guard") and re.search(serving, sim.log("replica-guard")), 30)
        target = re.search(serving, sim.log("replica-guard")).group(1)
        metrics_url = f"https://{target}/metrics"
        token = read(tokens["prometheus"])
        status, text = https_get(metrics_url, token)
        checks.check("the metrics-reader's token reads /metrics (200)", status == 200, f"{status}: {text[:200]}")
        status, text = https_get(metrics_url)
        checks.check("no token: 401", status == 401, f"{status}: {text}")
        status, text = https_get(metrics_url, read(tokens["nobody"]))
        checks.check("a token without metrics-reader: 403", status == 403, f"{status}: {text}")
        checks.check("plain HTTP is not served there", not plain_http_answers(target))
        promtool_check(checks, found["promtool"], https_get(metrics_url, token)[1], "before the failure")

        jobs = [scrape_job(JOB, target, tokens["prometheus"]), scrape_job("denied", target, tokens["nobody"]),
                scrape_job("anonymous", target)]
        with Prometheus(found["prometheus"], jobs) as prom:
            wait_for("prometheus ready", prom.ready, 60)
            if not checks.eventually(f"prometheus scrapes {target} over HTTPS with the reader's token (up == 1)",
                                     lambda: prom.scalar(f'up{{job="{JOB}"}}') == 1, 30):
                print(prom.log()[-2000:])
                return checks.result()
            for job in ("denied", "anonymous"):
                checks.eventually(f"the {job} job is down (up == 0)", lambda job=job: prom.scalar(f'up{{job="{job}"}}') == 0, 30)
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

        promtool_check(checks, found["promtool"], https_get(metrics_url, token)[1], "after the failure")
        flood(checks, metrics_url, token)
        if checks.failed:
            print(f"Logs: {sim.work}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
