#!/usr/bin/env python3
"""The flags that manifests/ and every chart variant pass to replica-guard parse with the
operator's own flag definitions and checks (operator/options.cpp, through parse_flags), and mean
what the values say.

    check_flags.py PARSE_FLAGS
"""
import subprocess
import sys

import shiplib
from shiplib import Checks, container_args, helm_template


def parse(parse_flags, args):
    """(accepted, {name: value} or the rejection) for a command line; the pod's namespace stands
    in for $(POD_NAMESPACE), as the kubelet expands it."""
    args = [a.replace("$(POD_NAMESPACE)", shiplib.RELEASE_NAMESPACE) for a in args]
    proc = subprocess.run([parse_flags, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        return False, proc.stderr.strip()
    return True, dict(line.split("=", 1) for line in proc.stdout.splitlines())


def expect(checks, parse_flags, label, objs, wanted):
    accepted, parsed = parse(parse_flags, container_args(objs))
    checks.check(accepted, f"{label}: replica-guard rejects its flags: {parsed}")
    if accepted:
        for name, value in wanted.items():
            checks.equal(parsed.get(name), value, f"{label}: {name}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_flags.py PARSE_FLAGS")
    parse_flags = sys.argv[1]
    checks = Checks("check_flags")

    # The checker itself rejects what the operator would.
    for bad in (["--no-such-flag"], ["--log-format=xml"], ["--node-grace-period=soon"],
                ["--node-lease-grace=soon"],
                ["--deployment-selector=a in ("]):
        accepted, _ = parse(parse_flags, bad)
        checks.check(not accepted, f"parse_flags accepted {bad}")

    common = {"leader-elect": "1", "leader-election-namespace": shiplib.RELEASE_NAMESPACE,
              "metrics-bind-address": ":8443", "metrics-secure": "1", "metrics-cert-path": "",
              "health-probe-bind-address": ":8081",
              "namespaces": "", "dry-run": "0", "log-format": "json", "verbosity": "0",
              "default-max-surge": "25%", "node-grace-period": "30s", "node-lease-grace": "24s",
              "scale-down-delay": "60s"}
    expect(checks, parse_flags, "manifests", shiplib.kustomize(shiplib.MANIFESTS),
           dict(common, **{"leader-election-id": "replica-guard"}))
    expect(checks, parse_flags, "manifests (namespaced)", shiplib.kustomize_namespaced(),
           {"namespaces": "default"})
    expect(checks, parse_flags, "chart defaults", helm_template(),
           dict(common, **{"leader-election-id": shiplib.RELEASE, "max-total-surge": "",
                           "sync-period": "10m", "watch-list": "1", "kube-api-qps": "0"}))
    expect(checks, parse_flags, "chart dry-run", helm_template(values_file="dry-run.yaml"),
           {"dry-run": "1"})
    expect(checks, parse_flags, "chart namespaced", helm_template(values_file="namespaced.yaml"),
           {"namespaces": f"team-a,team-b,{shiplib.RELEASE_NAMESPACE}",
            "deployment-selector": "tier in (web,api),!legacy"})
    expect(checks, parse_flags, "chart single replica", helm_template(values_file="single-replica.yaml"),
           {"leader-elect": "0"})
    expect(checks, parse_flags, "chart metrics off", helm_template(values_file="metrics-off.yaml"),
           {"metrics-bind-address": "0"})
    expect(checks, parse_flags, "chart plain metrics", helm_template(sets=["metrics.secure=false"]),
           {"metrics-bind-address": ":8443", "metrics-secure": "0"})
    expect(checks, parse_flags, "chart metrics certificate",
           helm_template(sets=["metrics.certSecret=rg-metrics-tls"]),
           {"metrics-secure": "1", "metrics-cert-path": "/etc/replica-guard/metrics-certs"})
    everything = helm_template(values_file="everything.yaml")
    # --some-future-flag (extraArgs) is not a flag yet: drop it to parse the rest.
    args = [a for a in container_args(everything) if not a.startswith("--some-future-flag")]
    accepted, parsed = parse(parse_flags, args)
    checks.check(accepted, f"chart everything: rejected: {parsed}")
    if accepted:
        for name, value in {"workers": "6", "verbosity": "2", "log-format": "text",
                            "max-total-surge": "20", "default-max-surge": "2",
                            "max-unhealthy-node-fraction": "0.4", "leader-election-id": "rg-lock",
                            "namespaces": "prod", "metrics-bind-address": ":9090",
                            "health-probe-bind-address": ":9091",
                            "deployment-selector": "app.kubernetes.io/part-of=shop",
                            "sync-period": "1h", "watch-list": "0", "kube-api-qps": "20",
                            "kube-api-burst": "40"}.items():
            checks.equal(parsed.get(name), value, f"chart everything: {name}")
    checks.done()


if __name__ == "__main__":
    main()
