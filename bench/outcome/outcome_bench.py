#!/usr/bin/env python3
"""The outcome benchmark: many node deaths, at random phases of the kubelet's Lease renewal, in
one kube-sim with every setup side by side (Kubernetes' defaults, tolerationSeconds 30 and 0, and
replica-guard), each timed from the death (see scripts/outcome.py). Prints per setup p50 and max
of capacity back and dead endpoints in real-cluster seconds, the pods bound to a node while it
carried replica-guard's suspect taint (there must be none), and writes every death's figures as
JSON. With --false-positives N it then slows one more group's node's kubelet so that its Lease is
N times falsely suspect (each renewal 2 s past the grace) and prints how long that node's healthy
pods stayed NotReady each time, per setup.

  bench/outcome/outcome_bench.py BUILD_DIR [--deaths 30] [--time-scale 0.1] [--json FILE]
                                 [--false-positives N] [--operator-arg=--flag=value ...]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_api import KubeApi  # noqa: E402
from kube_sim_session import KubeSim  # noqa: E402
import outcome  # noqa: E402


def run(build_dir, deaths, scale, operator_args=(), false_positives=0, say=print):
    """Runs the deaths, then the false suspicions; returns (the Deaths, summarize()'s rows,
    {"tainted_bindings": Outcome.tainted_bindings(), "false_positive": Outcome.false_positive()
    or None})."""
    per = outcome.NODES_PER_GROUP
    groups = deaths + (1 if false_positives else 0)
    start = time.monotonic()
    with KubeSim(build_dir, "--nodes", str(groups * per), "--time-scale", str(scale)) as sim:
        sim.start_operator("replica-guard", *outcome.operator_flags(scale), *operator_args)
        api = KubeApi(sim.kubectl, sim.kubeconfig, sim.work)
        harness = outcome.Outcome(api, scale, nodes_per_group=per)
        try:
            harness.prepare(groups, outcome.node_names(api))
            say(f"{groups} groups of {per} nodes ready after {time.monotonic() - start:.0f}s")
            # Deaths 12 s apart (plus a random part of the renew interval): the node lifecycle
            # controller taints at most one node per 10 s in a healthy zone (--node-eviction-rate).
            limit = (50 + 300 + 2) * 1.5 * scale + 30
            result = harness.run_deaths(deaths, spacing=12 * scale, timeout=limit, say=say)
            extras = {"false_positive": None}
            if false_positives:
                extras["false_positive"] = harness.false_positive(list(harness.groups)[-1], false_positives)
            extras["tainted_bindings"] = harness.tainted_bindings()
        finally:
            harness.close()
    return result, outcome.summarize(result, scale), extras


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--deaths", type=int, default=30)
    parser.add_argument("--time-scale", type=float, default=0.1)
    parser.add_argument("--json", help="write every death's figures here")
    parser.add_argument("--false-positives", type=int, default=0,
                        help="then make one node's Lease falsely suspect this many times")
    parser.add_argument("--operator-arg", action="append", default=[],
                        help="an extra replica-guard flag (repeatable)")
    args = parser.parse_args()
    deaths, rows, extras = run(args.build_dir, args.deaths, args.time_scale, args.operator_arg,
                               args.false_positives)
    print()
    print(f"{len(deaths)} node deaths, time scale {args.time_scale:g}, real-cluster seconds from the death:")
    print(outcome.table(rows))
    tainted = extras["tainted_bindings"]
    print(f"pods bound to a node while it carried {outcome.SUSPECT_TAINT}: {len(tainted)}"
          + "".join(f"\n  {setup}: {key} on {node}" for setup, key, node in tainted))
    false_positive = extras["false_positive"]
    if false_positive:
        print(f"{args.false_positives} false suspicions of {false_positive['node']} (Lease renewals 2 s past the "
              f"grace), {false_positive['surges']} surge(s) written; healthy pods NotReady (s):")
        for setup, spans in false_positive["not_ready"].items():
            shown = ", ".join("never back" if s is None else f"{s:.1f}" for s in spans) or "never"
            print(f"  {setup}: {shown}")
    if args.json:
        outcome.dump(deaths, args.time_scale, args.json)
    missing = sum(row[f]["missing"] for row in rows.values() for f in ("capacity_back", "dead_endpoints"))
    return 1 if missing or tainted else 0


if __name__ == "__main__":
    sys.exit(main())
