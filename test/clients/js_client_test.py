#!/usr/bin/python3
"""Runs js_informer_test.mjs (the official JavaScript client's informers) against a kube-sim it
starts. Skips (77) without Node.js, kubectl or @kubernetes/client-node (scripts/setup.sh --tools
installs the pinned version into .tools/node).

Usage: js_client_test.py BUILD_DIR CLIENT_NODE_DIR"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import KubeSim, skip_without_kubectl  # noqa: E402


@skip_without_kubectl
def main():
    build_dir, module_dir = sys.argv[1], sys.argv[2]
    node = shutil.which("node")
    if not node:
        print("skipped: Node.js is missing (scripts/setup.sh --tools installs it)")
        return 77
    if not os.path.isdir(os.path.join(module_dir, "node_modules", "@kubernetes", "client-node")):
        print(f"skipped: @kubernetes/client-node is not installed in {module_dir} "
              "(scripts/setup.sh --tools installs it)")
        return 77
    with KubeSim(build_dir, "--nodes", "2", "--time-scale", "0.05") as server:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js_informer_test.mjs")
        result = subprocess.run([node, script, server.kubeconfig, module_dir, server.kubectl],
                                timeout=240)
        if result.returncode != 0:
            server.close(failed=True)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
