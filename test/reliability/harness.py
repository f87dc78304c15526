"""What the reliability tests and scripts share: kube-sim with the operator's replicas as
processes (scripts/kube_sim_session.py), kube-sim's admin endpoints (/sim/faults, /sim/restart,
/sim/kubelets, /sim/writes) through scripts/kube_api.py, the Lease holder, guarded Deployments,
and a process's resident memory from /proc."""
import http.client
import json
import os
import re
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, HERE)
from kube_api import ApiError, KubeApi  # noqa: E402,F401
from kube_sim_session import Checks, KubeSim, skip_without_kubectl, wait_for  # noqa: E402,F401

import invariants  # noqa: E402

NAMESPACE = "default"
LEASE_NAME = "replica-guard"


def leader_flags(lease, renew, retry):
    return ["--leader-elect", "--leader-election-namespace", NAMESPACE,
            "--leader-elect-lease-duration", f"{lease:g}s", "--leader-elect-renew-deadline", f"{renew:g}s",
            "--leader-elect-retry-period", f"{retry:g}s"]


def operator_flags(time_scale):
    """replica-guard's node timings at the cluster's time scale (as scripts/outcome.py)."""
    return ["--node-grace-period", f"{30 * time_scale:g}s", "--node-lease-grace", f"{24 * time_scale:g}s",
            "--scale-down-delay", f"{60 * time_scale:g}s"]


def guarded_deployment(name, replicas, max_surge="1"):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NAMESPACE,
                         "annotations": {invariants.ENABLED: "true", invariants.MAX_SURGE: max_surge}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}}}}


def rss_kib(pid):
    """The resident set of process `pid` in KiB (VmRSS of /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Sim:
    """kube-sim (a KubeSim) and its admin endpoints; a context manager."""

    DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"

    def __init__(self, build_dir, *args):
        self.session = KubeSim(build_dir, *args)
        self.api = KubeApi(self.session.kubectl, self.session.kubeconfig, self.session.work)
        self.recorded = []
        self.last = 0

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.session.close(failed=exc_type is not None)

    def admin(self, method, path, body=None, **params):
        query = ("?" + urllib.parse.urlencode(params)) if params else ""
        return self.api.request(method, path + query, body)

    def up(self):
        """Whether kube-sim answers (not during a restart)."""
        try:
            self.admin("GET", "/sim/faults")
            return True
        except (OSError, http.client.HTTPException):
            return False

    def faults(self, **config):
        """PUT /sim/faults with `config` (errorRate, errorCode, retryAfterSeconds, latencyMs,
        latencyJitterMs, scope); no arguments: DELETE (no faults)."""
        if not config:
            return self.admin("DELETE", "/sim/faults")
        return self.admin("PUT", "/sim/faults", config)

    def writes(self):
        """Every write recorded so far (read on from the last call)."""
        answer = self.admin("GET", "/sim/writes", since=self.last)
        self.recorded.extend(answer["writes"])
        self.last = answer["last"]
        if answer["dropped"]:
            raise RuntimeError(f"kube-sim's write record dropped {answer['dropped']} entries")
        return self.recorded

    def wait_for_write(self, predicate, timeout, start=0):
        """The first recorded write from index `start` on for which predicate(entry) holds,
        waiting up to `timeout` seconds for it; None when none came."""
        deadline = time.monotonic() + timeout
        while True:
            for entry in self.writes()[start:]:
                if predicate(entry):
                    return entry
            start = len(self.recorded)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)

    def lease(self):
        try:
            return self.api.get(f"/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases/{LEASE_NAME}")
        except ApiError as e:
            if e.status in (404, 429) or e.status >= 500:
                return None
            raise

    def holder(self):
        return ((self.lease() or {}).get("spec") or {}).get("holderIdentity", "")

    def deployments(self):
        return self.api.get(self.DEPLOYMENTS)["items"]

    def create(self, obj):
        return self.api.request("POST", self.DEPLOYMENTS, obj)

    def scale(self, name, replicas):
        """A person's scale (kubectl scale), which the operator adopts as the new desired count."""
        return self.api.merge_patch(f"{self.DEPLOYMENTS}/{name}/scale", {"spec": {"replicas": replicas}})

    def nodes(self):
        return [item["node"] for item in self.admin("GET", "/sim/kubelets")["items"]]

    def kubelet(self, node, action):
        return self.admin("POST", f"/sim/kubelets/{node}/{action}")


def identity_of(session, name):
    """The leader-election identity a replica's log names when it acquires the Lease, or None."""
    found = re.search(r"leader election: (\S+) acquired lease", session.log(name))
    return found.group(1) if found else None


def leader(sim, names, timeout=60):
    """The replica of `names` holding the Lease, and its identity: once the Lease names a holder and
    that replica's log names it too (the log line follows the Lease's write, so the holder can be
    seen first). Raises after `timeout` seconds."""
    found = []

    def named():
        holder = sim.holder()
        found[:] = [(name, holder) for name in names if holder and identity_of(sim.session, name) == holder]
        return bool(found)
    try:
        wait_for("a leader", named, timeout, interval=0.05)
    except RuntimeError:
        raise RuntimeError(f"no replica's log names the Lease's holder {sim.holder()!r} "
                           f"within {timeout:g}s") from None
    return found[0]


def fenced_writes(session, name):
    """How many writes replica `name` stopped at its fence (its log lines)."""
    return session.log(name).count("write stopped before it left")


def dump(path, writes):
    with open(path, "w") as f:
        json.dump(writes, f)
