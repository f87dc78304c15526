#!/usr/bin/python3
"""The peer comparison: replica-guard's informer side by side with the official clients', in one
run, against one kube-sim, with the same kubeconfig, data and updates. For each fleet size it
starts peers_kube_sim holding that many realistic pods (bench/seed_pods.hpp) and runs, one after
another:

  replica-guard        build/bench/peers/informer_probe (a SharedInformerFactory informer)
  client-node          bench/peers/client_node_probe.mjs (@kubernetes/client-node's makeInformer)
  python3-kubernetes   bench/peers/python_client_probe.py (paginated LIST, then a watch)

Each probe prints a JSON line when synced; the script then has kube-sim modify K distinct pods
(POST /sim/bench/modify-pods, K = min(--updates, pods)) and the probe reports how fast it handled
the K MODIFIED events. A peer whose last size took long to sync is not run at sizes projected to
take more than --budget seconds; the table says so. Writes results.json and table.md to --out
and, with --plots DIR, the plots (bench/peers/plots.py).

Usage: bench/peers/run.py [--build-dir build] [--pods 1000,10000,50000,100000,150000]
                          [--updates 5000] [--budget 240] [--out DIR] [--plots docs/img]
                          [--clients replica-guard,client-node,python3-kubernetes]
Needs kubectl (scripts/setup.sh --tools), Node.js with @kubernetes/client-node in
--client-node-dir (default .tools/node) and Debian's python3-kubernetes for /usr/bin/python3."""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
from kube_api import KubeApi  # noqa: E402
from table import render_tables  # noqa: E402

CLIENTS = ("replica-guard", "client-node", "python3-kubernetes")


class PeerFailed(RuntimeError):
    """A probe that did not report what it should; the message says which and where its log is."""


def probe_command(client, args, kubeconfig, updates):
    if client == "replica-guard":
        return [os.path.join(args.build_dir, "bench/peers/informer_probe"), "--kubeconfig", kubeconfig,
                "--resource", "pods", "--updates", str(updates), "--timeout", str(args.timeout)]
    if client == "client-node":
        return [args.node, os.path.join(HERE, "client_node_probe.mjs"), args.client_node_dir, kubeconfig,
                "pods", "", str(updates)]
    return ["/usr/bin/python3", os.path.join(HERE, "python_client_probe.py"), kubeconfig, "pods", "",
            str(updates)]


class FleetServer:
    """peers_kube_sim holding `pods` pods, with an API client for its admin endpoint."""

    def __init__(self, args, pods, work):
        self.kubeconfig = os.path.join(work, "kubeconfig")
        self.log = os.path.join(work, "kube-sim.log")
        self.process = subprocess.Popen(
            [os.path.join(args.build_dir, "bench/peers/peers_kube_sim"), "--pods", str(pods),
             "--write-kubeconfig", self.kubeconfig],
            stdout=subprocess.PIPE, stderr=open(self.log, "w"), text=True)
        if not self.process.stdout.readline().startswith("kube-sim serving on"):
            self.close()
            raise PeerFailed(f"peers_kube_sim did not start; see {self.log}")
        self.api = KubeApi(args.kubectl, self.kubeconfig, work)

    def pod_json_bytes(self):
        """The mean size of a stored pod's compact JSON (from the first page of a LIST)."""
        items = self.api.get("/api/v1/pods?limit=100")["items"]
        return sum(len(json.dumps(p, separators=(",", ":"))) for p in items) / max(1, len(items))

    def modify(self, count):
        answer = self.api.request("POST", f"/sim/bench/modify-pods?count={count}")
        if answer["modified"] != count:
            raise PeerFailed(f"kube-sim modified {answer['modified']} pods, not {count}")

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


def last_line(log_path):
    """The probe's last line of errors: what it said when it failed (the run keeps its log)."""
    with open(log_path) as f:
        lines = [line.strip() for line in f if line.strip()]
    return lines[-1] if lines else "no error output"


def run_probe(client, args, server, pods, updates, work):
    """Runs one probe to its end; returns its final JSON line plus pods and the load average."""
    log_path = os.path.join(work, f"{client}-{pods}.log")
    with open(log_path, "w") as log:
        process = subprocess.Popen(probe_command(client, args, server.kubeconfig, updates),
                                   stdout=subprocess.PIPE, stderr=log, text=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            process.kill()
        watchdog = threading.Timer(args.timeout, kill)
        watchdog.start()
        try:
            synced = process.stdout.readline()
            if not synced.strip():
                process.wait()
                raise PeerFailed(f"{client} ended before it synced {pods} pods: {last_line(log_path)}")
            if updates:
                server.modify(updates)
            done = process.stdout.readline()
            code = process.wait()
        finally:
            watchdog.cancel()
            if process.poll() is None:
                process.kill()
                process.wait()
    if timed_out.is_set():
        raise PeerFailed(f"{client} killed after --timeout {args.timeout:g} s at {pods} pods")
    if code != 0 or not done.strip():
        raise PeerFailed(f"{client} failed at {pods} pods (exit {code}): {last_line(log_path)}")
    result = json.loads(done)
    result.update(client=client, name=result["client"], pods=pods,
                  load_average=round(os.getloadavg()[0], 2))
    return result


def projected_skip(previous, pods, budget):
    """Why a client that synced previous["pods"] in previous["synced_seconds"] is not run at
    `pods` (linear projection over budget), or None."""
    if previous is None:
        return None
    projected = previous["synced_seconds"] * pods / previous["pods"]
    if projected <= budget:
        return None
    return (f"not run: {previous['pods']:,} pods took {previous['synced_seconds']:.0f} s to sync, "
            f"so {pods:,} would take about {projected:.0f} s (over the {budget:g} s budget)")


def compare(args):
    work = tempfile.mkdtemp(prefix="bench-peers-")
    results = {"clients": args.clients, "updates": args.updates, "budget_seconds": args.budget,
               "cpus": os.cpu_count(), "runs": []}
    last = {}
    try:
        for pods in args.pods:
            server = FleetServer(args, pods, work)
            try:
                results.setdefault("pod_json_bytes", round(server.pod_json_bytes()))
                for client in args.clients:
                    skip = projected_skip(last.get(client), pods, args.budget)
                    if skip:
                        results["runs"].append({"client": client, "pods": pods, "skipped": skip})
                        print(f"{pods:>7} pods  {client:<20} {skip}", flush=True)
                        continue
                    try:
                        result = run_probe(client, args, server, pods, min(args.updates, pods), work)
                        if result["objects"] != pods:
                            raise PeerFailed(f"{client} cached {result['objects']} pods, not {pods}")
                    except PeerFailed as e:
                        # Recorded, and the client is not run at larger sizes.
                        results["runs"].append({"client": client, "pods": pods, "skipped": f"failed: {e}",
                                                "failed": True})
                        last[client] = {"pods": 1, "synced_seconds": float("inf")}
                        print(f"{pods:>7} pods  {client:<20} FAILED: {e}", flush=True)
                        continue
                    last[client] = result
                    results["runs"].append(result)
                    print(f"{pods:>7} pods  {client:<20} synced {result['synced_seconds']:.2f} s "
                          f"(CPU {result['synced_cpu_seconds']:.2f} s), peak RSS "
                          f"{result['rss_peak_mib']:.0f} MiB, "
                          f"{result.get('updates_per_cpu_second', 0):,.0f} updates/CPU-s", flush=True)
            finally:
                server.close()
    except Exception:
        print(f"bench/peers: the run failed; logs kept in {work}", file=sys.stderr)
        raise
    if any(r.get("failed") for r in results["runs"]):
        print(f"bench/peers: some clients failed; logs kept in {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return results


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--pods", default="1000,10000,50000,100000,150000",
                        help="comma-separated fleet sizes, run in this order")
    parser.add_argument("--updates", type=int, default=5000,
                        help="MODIFIED events each client handles after syncing (at most the fleet)")
    parser.add_argument("--budget", type=float, default=240,
                        help="skip a client at a size its last sync projects beyond this many seconds")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds before a probe is killed")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated, from " + ", ".join(CLIENTS))
    parser.add_argument("--client-node-dir", default=os.path.join(ROOT, ".tools", "node"))
    parser.add_argument("--out", default=".", help="where results.json and table.md go")
    parser.add_argument("--plots", help="write the plots (PNG) to this directory")
    args = parser.parse_args(argv)
    try:
        args.pods = [int(p) for p in args.pods.split(",")]
    except ValueError:
        parser.error(f"--pods takes comma-separated numbers, not {args.pods!r}")
    if any(p < 1 for p in args.pods) or args.updates < 0:
        parser.error("--pods must be positive and --updates not negative")
    args.clients = args.clients.split(",")
    unknown = set(args.clients) - set(CLIENTS)
    if unknown or "replica-guard" not in args.clients:
        parser.error(f"--clients: replica-guard and any of {', '.join(CLIENTS[1:])} "
                     f"(unknown: {', '.join(sorted(unknown)) or 'none'})")
    args.kubectl = shutil.which("kubectl") or os.path.join(ROOT, ".tools", "bin", "kubectl")
    args.node = shutil.which("node") or "node"
    return args


def missing_tools(args):
    """What is missing to run the chosen clients, each with how to get it."""
    missing = []
    for program in ("bench/peers/informer_probe", "bench/peers/peers_kube_sim"):
        if not os.access(os.path.join(args.build_dir, program), os.X_OK):
            missing.append(f"{program} in {args.build_dir} (ninja -C {args.build_dir} {program})")
    if not os.access(args.kubectl, os.X_OK):
        missing.append("kubectl (scripts/setup.sh --tools)")
    if "client-node" in args.clients:
        if not shutil.which(args.node):
            missing.append("Node.js (scripts/setup.sh --tools)")
        if not os.path.isdir(os.path.join(args.client_node_dir, "node_modules", "@kubernetes", "client-node")):
            missing.append(f"@kubernetes/client-node in {args.client_node_dir} (scripts/setup.sh --tools)")
    if "python3-kubernetes" in args.clients and subprocess.run(
            ["/usr/bin/python3", "-c", "import kubernetes"], capture_output=True).returncode != 0:
        missing.append("python3-kubernetes for /usr/bin/python3 (scripts/setup.sh)")
    if args.plots and importlib.util.find_spec("matplotlib") is None:
        missing.append("python3-matplotlib for --plots (scripts/setup.sh --tools)")
    return missing


def main(argv):
    args = parse_args(argv)
    missing = missing_tools(args)
    if missing:
        print("bench/peers: missing " + "; ".join(missing), file=sys.stderr)
        return 2
    started = time.time()
    results = compare(args)
    results["command"] = "bench/peers/run.py " + " ".join(argv)
    results["seconds"] = round(time.time() - started)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    table = render_tables(results)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    if args.plots:
        from plots import draw_plots  # matplotlib only when asked for (missing_tools checked it)
        for path in draw_plots(results, args.plots):
            print(f"wrote {path}")
    return 1 if any(r.get("failed") for r in results["runs"]) else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except PeerFailed as e:
        print(f"bench/peers: {e}", file=sys.stderr)
        sys.exit(1)
