#!/usr/bin/env python3
"""replica-guard with --metrics-bind-address and --health-probe-bind-address the same address:
one server serves /metrics, /healthz and /readyz, and its log line names all three. Skips (77)
without kubectl.

Usage: one_port.py BUILD_DIR"""
import os
import re
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, skip_without_kubectl  # noqa: E402


@skip_without_kubectl
def main():
    checks = Checks("one_port.py")
    check, eventually = checks.check, checks.eventually
    sim = KubeSim(sys.argv[1], "--nodes", "1")
    with sim:
        # One port for both needs plain HTTP metrics: the probes stay plain for the kubelet.
        sim.start_operator("shared", "--metrics-secure=false", "--metrics-bind-address=127.0.0.1:0",
                           "--health-probe-bind-address=127.0.0.1:0")
        if not eventually("ready", lambda: "caches synced" in sim.log("shared"), 30):
            return 1
        serving = re.findall(r"serving address=(\S+) endpoints=(\"[^\"]*\"|\S+)", sim.log("shared"))
        check("one server", len(serving) == 1, str(serving))
        if serving:
            address, endpoints = serving[0]
            check("its log line names every endpoint", endpoints.strip('"').split() == ["/metrics", "/healthz", "/readyz"],
                  endpoints)
            for path in ("/metrics", "/healthz", "/readyz"):
                with urllib.request.urlopen(f"http://{address}{path}", timeout=10) as reply:
                    check(f"{path} is served there", reply.status == 200, str(reply.status))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
