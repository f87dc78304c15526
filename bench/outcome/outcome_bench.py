#!/usr/bin/env python3
"""The outcome benchmark: many node deaths, at random phases of the kubelet's Lease renewal, in
one kube-sim with every setup side by side (Kubernetes' defaults, tolerationSeconds 30 and 0, and
replica-guard), each timed from the death (see scripts/outcome.py). Prints per setup p50 and max
of capacity back and dead endpoints in real-cluster seconds, and writes every death's figures as
JSON.

  bench/outcome/outcome_bench.py BUILD_DIR [--deaths 30] [--time-scale 0.1] [--json FILE]
                                 [--operator-arg=--flag=value ...]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_api import KubeApi  # noqa: E402
from kube_sim_session import KubeSim  # noqa: E402
import outcome  # noqa: E402


def run(build_dir, deaths, scale, operator_args=(), say=print):
    """Runs the deaths; returns (the Deaths, summarize()'s rows)."""
    per = outcome.NODES_PER_GROUP
    start = time.monotonic()
    with KubeSim(build_dir, "--nodes", str(deaths * per), "--time-scale", str(scale)) as sim:
        sim.start_operator("replica-guard", *outcome.operator_flags(scale), *operator_args)
        api = KubeApi(sim.kubectl, sim.kubeconfig, sim.work)
        harness = outcome.Outcome(api, scale, nodes_per_group=per)
        try:
            harness.prepare(deaths, outcome.node_names(api))
            say(f"{deaths} groups of {per} nodes ready after {time.monotonic() - start:.0f}s")
            # Deaths 12 s apart (plus a random part of the renew interval): the node lifecycle
            # controller taints at most one node per 10 s in a healthy zone (--node-eviction-rate).
            limit = (50 + 300 + 2) * 1.5 * scale + 30
            result = harness.run_deaths(deaths, spacing=12 * scale, timeout=limit, say=say)
        finally:
            harness.close()
    return result, outcome.summarize(result, scale)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--deaths", type=int, default=30)
    parser.add_argument("--time-scale", type=float, default=0.1)
    parser.add_argument("--json", help="write every death's figures here")
    parser.add_argument("--operator-arg", action="append", default=[],
                        help="an extra replica-guard flag (repeatable)")
    args = parser.parse_args()
    deaths, rows = run(args.build_dir, args.deaths, args.time_scale, args.operator_arg)
    print()
    print(f"{len(deaths)} node deaths, time scale {args.time_scale:g}, real-cluster seconds from the death:")
    print(outcome.table(rows))
    if args.json:
        outcome.dump(deaths, args.time_scale, args.json)
    missing = sum(row[f]["missing"] for row in rows.values() for f in ("capacity_back", "dead_endpoints"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
