#!/usr/bin/python3
"""The `peers` test: the peer comparison (bench/peers/run.py) on a tiny fleet, so that it cannot
rot. Asserts what the comparison rests on -- every client synced every pod and handled every
update, the table has each client and a ratio for each peer, and the plots are written -- and no
timing. Skips (77) without kubectl, Node.js with @kubernetes/client-node, python3-kubernetes or
python3-matplotlib (scripts/setup.sh --tools installs them all).

Usage: peers_test.py BUILD_DIR CLIENT_NODE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from kube_sim_session import Checks  # noqa: E402
PODS = 200
PLOTS = ("peers-sync.png", "peers-memory.png", "peers-updates.png")
RSS_SLACK_MIB = 1.0


def is_png(path):
    if not os.path.exists(path):
        return False
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def missing(client_node_dir):
    """What the test cannot run without, or None."""
    if not (shutil.which("kubectl") or os.access(os.path.join(HERE, "..", "..", ".tools", "bin", "kubectl"), os.X_OK)):
        return "kubectl is missing"
    if not shutil.which("node"):
        return "Node.js is missing"
    if not os.path.isdir(os.path.join(client_node_dir, "node_modules", "@kubernetes", "client-node")):
        return f"@kubernetes/client-node is not installed in {client_node_dir}"
    for module, package in (("kubernetes", "python3-kubernetes"), ("matplotlib", "python3-matplotlib")):
        if subprocess.run(["/usr/bin/python3", "-c", f"import {module}"], capture_output=True).returncode:
            return f"{package} is missing for /usr/bin/python3"
    return None


def main():
    build_dir, client_node_dir = sys.argv[1], sys.argv[2]
    why = missing(client_node_dir)
    if why:
        print(f"skipped: {why} (scripts/setup.sh --tools installs it)")
        return 77
    checks = Checks("peers")
    check = checks.check
    out = tempfile.mkdtemp(prefix="peers-test-")
    try:
        result = subprocess.run(
            ["/usr/bin/python3", os.path.join(HERE, "run.py"), "--build-dir", build_dir, "--pods", str(PODS),
             "--updates", str(PODS), "--client-node-dir", client_node_dir, "--out", out,
             "--plots", os.path.join(out, "img"), "--timeout", "120"],
            capture_output=True, text=True, timeout=240)
        print(result.stdout, result.stderr, sep="\n")
        if not check("run.py succeeds", result.returncode == 0, f"exit {result.returncode}"):
            return checks.result()
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        runs = {r["client"]: r for r in results["runs"]}
        for client in ("replica-guard", "client-node", "python3-kubernetes"):
            run = runs.get(client, {})
            check(f"{client} ran", "skipped" not in run and "objects" in run, json.dumps(run))
            check(f"{client} cached every pod", run.get("objects") == PODS, f"{run.get('objects')} of {PODS}")
            check(f"{client} handled every update", run.get("updates") == PODS, f"{run.get('updates')} of {PODS}")
            # VmRSS and VmHWM are per-CPU counter sums the kernel reads without folding (up to
            # ~32 pages per CPU off each), so a peak read after a shrink may sit just below an
            # earlier RSS read: allow RSS_SLACK_MIB.
            check(f"{client} reported its memory",
                  run.get("rss_peak_mib", 0) + RSS_SLACK_MIB >= run.get("rss_synced_mib", 1) > 0,
                  json.dumps(run))
        check("python3-kubernetes reported its version", runs.get("python3-kubernetes", {}).get("version", "")
              .count(".") >= 1)
        with open(os.path.join(out, "table.md")) as f:
            table = f.read()
        for label in ("replica-guard", "@kubernetes/client-node 1.4", "python3-kubernetes",
                      "Time to synced", "Memory", "Updates handled", "client-go (quoted"):
            check(f"the table shows {label}", label in table)
        rows = [line for line in table.splitlines() if line.startswith(f"| {PODS} |")]
        check("each table has a row for the fleet with a ratio per peer",
              len(rows) == 3 and all(line.count("×") == 2 for line in rows), "\n".join(rows))
        for plot in PLOTS:
            check(f"{plot} is a PNG", is_png(os.path.join(out, "img", plot)))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
