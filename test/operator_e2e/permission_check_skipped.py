#!/usr/bin/env python3
"""replica-guard when its permission self-check cannot run: the API server refuses the
SelfSubjectAccessReviews themselves. kube-sim (HTTPS, RBAC enforced) gets manifests/'s RBAC, and
the system:basic-user ClusterRoleBinding -- through which every authenticated user may make
SelfSubjectAccessReviews -- is deleted, so the operator's reviews are Forbidden. It must log that it
starts without the check, sync its caches and do its job, with /readyz ready and saying the check
was skipped. (kube-sim serves the reviews ahead of its fault injection, so a 500 cannot be
injected there; the operator treats every error answer to the reviews alike.) Skips (77) without
kubectl.

Usage: permission_check_skipped.py BUILD_DIR"""
import os
import re
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, skip_without_kubectl  # noqa: E402
from service_account import install_service_account  # noqa: E402

SKIPPED = "the permission self-check cannot run; starting without it"


@skip_without_kubectl
def main():
    build_dir = sys.argv[1]
    checks = Checks("permission_check_skipped.py")
    check, eventually = checks.check, checks.eventually
    sim = KubeSim(build_dir, "--nodes", "2", "--time-scale", "0.05")
    with sim:
        kubeconfig = install_service_account(sim)
        sim.run("delete", "clusterrolebinding", "system:basic-user")
        sim.start_operator("unchecked", "--health-probe-bind-address", "127.0.0.1:0", kubeconfig=kubeconfig)
        if not eventually("logs that it starts without the permission self-check",
                          lambda: SKIPPED in sim.log("unchecked"), 30):
            print(sim.log("unchecked")[-2000:])
            return 1
        check("the log names the API server's answer", re.search(SKIPPED + r".*orbidden", sim.log("unchecked")),
              sim.log("unchecked")[-1500:])

        sim.run("apply", "-f", "-", stdin=deployment_manifest("web", 2, {"replica-guard.io/enabled": "true"}))
        eventually("syncs its caches", lambda: "caches synced" in sim.log("unchecked"), 60)
        eventually("records the desired replicas", lambda: (sim.get("deployment", "web", "-n", "default") or {}).get(
            "metadata", {}).get("annotations", {}).get("replica-guard.io/desired-replicas") == "2", 60)

        address = re.search(r"serving address=(\S+)", sim.log("unchecked"))
        check("the probe server is listening", address is not None, sim.log("unchecked")[-1500:])
        if address:
            try:
                with urllib.request.urlopen(f"http://{address.group(1)}/readyz?verbose", timeout=10) as reply:
                    body = reply.read().decode()
                    check("/readyz is ready and says the check was skipped",
                          reply.status == 200 and "[+]permissions skipped" in body, body)
            except urllib.error.HTTPError as e:
                check("/readyz is ready", False, f"{e.code}: {e.read().decode()}")
        check("no missing-permission error was made up", "lacks" not in sim.log("unchecked"),
              sim.log("unchecked")[-1500:])
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
