#!/usr/bin/env python3
"""replica-guard under its own ServiceAccount, with least privilege tested rather than assumed:
kube-sim (HTTPS, RBAC enforced) gets manifests/'s Namespace, ServiceAccount and RBAC rules; the
operator runs with a token minted by `kubectl create token` and must do its whole job (record,
scale up for a failed node, scale back). Then one rule is taken away: a new operator must refuse
to start its informers, log one error naming exactly the missing permission, and report it on
/readyz. Skips (77) without kubectl.

Usage: service_account.py BUILD_DIR"""
import os
import re
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, skip_without_kubectl, wait_for  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
NAMESPACE = "replica-guard-system"


def install_service_account(sim):
    """Applies manifests/' Namespace, ServiceAccount and RBAC; returns the ServiceAccount's
    kubeconfig (KubeSim.service_account_kubeconfig)."""
    manifests = os.path.join(ROOT, "manifests")
    for name in ("00-namespace.yaml", "10-serviceaccount.yaml", "20-rbac.yaml", "21-rbac-bindings.yaml"):
        sim.run("apply", "-f", os.path.join(manifests, name))
    return sim.service_account_kubeconfig("replica-guard", NAMESPACE)


@skip_without_kubectl
def main():
    build_dir = sys.argv[1]
    checks = Checks("service_account.py")
    check, eventually = checks.check, checks.eventually
    sim = KubeSim(build_dir, "--nodes", "3", "--time-scale", "0.05")
    with sim:
        kubeconfig = install_service_account(sim)
        can_i = subprocess.run([sim.kubectl, "--kubeconfig", kubeconfig, "auth", "can-i", "delete", "pods"],
                               capture_output=True, text=True)
        check("the ServiceAccount may not delete pods", can_i.stdout.strip() == "no", can_i.stdout + can_i.stderr)

        sim.start_operator("least-privilege", "--leader-elect", f"--leader-election-namespace={NAMESPACE}",
                           "--node-grace-period=1s", "--scale-down-delay=1s", kubeconfig=kubeconfig)
        sim.run("apply", "-f", "-", stdin=deployment_manifest(
            "web", 4, {"replica-guard.io/enabled": "true", "replica-guard.io/max-surge": "100%"}))

        def web():
            return sim.get("deployment", "web", "-n", "default") or {}

        def replicas():
            return web().get("spec", {}).get("replicas")

        if not eventually("records the desired replicas under its own token",
                          lambda: web().get("metadata", {}).get("annotations", {}).get(
                              "replica-guard.io/desired-replicas") == "4", 30):
            return 1
        wait_for("the pods scheduled on two nodes or more", lambda: len({p["spec"].get("nodeName") for p in sim.items("pods")
                                                          if p["metadata"].get("labels", {}).get("app") == "web"
                                                          and p["spec"].get("nodeName")}) >= 2, 30)
        pods = [p for p in sim.items("pods") if p["metadata"].get("labels", {}).get("app") == "web"]
        victim = pods[0]["spec"]["nodeName"]
        stranded = sum(1 for p in pods if p["spec"].get("nodeName") == victim)
        sim.run("label", "node", victim, "sim.replica-guard.io/kubelet=stopped")
        eventually(f"scales up for {stranded} stranded pod(s) through deployments/scale",
                   lambda: replicas() == 4 + stranded, 60)
        sim.run("label", "node", victim, "sim.replica-guard.io/kubelet-")
        eventually("scales back after recovery", lambda: replicas() == 4, 60)
        log = sim.log("least-privilege")
        check("never forbidden", "forbidden" not in log.lower(), log[-2000:])

        # Take one rule away: the scale subresource.
        sim.run("patch", "clusterrole", "replica-guard", "--type=json",
                "-p", '[{"op": "remove", "path": "/rules/1"}]')
        rules = sim.get("clusterrole", "replica-guard")["rules"]
        check("the scale rule is gone", all("deployments/scale" not in r.get("resources", []) for r in rules),
              str(rules))
        sim.start_operator("missing-rule", "--health-probe-bind-address", "127.0.0.1:0", "--node-grace-period=1s",
                           kubeconfig=kubeconfig)

        def complaint():
            return re.search(r"lacks (\d+) permission.*\n((?:\s+- .*\n?)+)", sim.log("missing-rule"))

        if not eventually("an error about the missing permission", lambda: complaint() is not None, 30):
            return 1
        found = complaint()
        check("one error naming exactly the missing permission",
              found.group(1) == "1" and "patch deployments.apps/scale cluster-wide" in found.group(2),
              found.group(0))
        check("no informer started without the permission", "caches synced" not in sim.log("missing-rule"),
              sim.log("missing-rule")[-2000:])
        address = re.search(r"serving address=(\S+)", sim.log("missing-rule"))
        check("the probe server is listening", address is not None, sim.log("missing-rule")[-1500:])
        if address:
            try:
                urllib.request.urlopen(f"http://{address.group(1)}/readyz?verbose", timeout=10)
                check("/readyz fails while the permission is missing", False, "it answered 200")
            except urllib.error.HTTPError as e:
                body = e.read().decode()
                check("/readyz fails and names the permission",
                      e.code == 500 and "patch deployments.apps/scale" in body, f"{e.code}: {body}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
