#!/usr/bin/env python3
"""Checks manifests/: `kubectl kustomize` renders it, `kubectl apply -f manifests/` and
`kubectl apply -k manifests/` would send the same objects (asked of a loopback discovery stub
with --dry-run=client), the objects fit together and meet the restricted Pod Security Standard,
the namespaced component scopes the operator, every place that names the version agrees, and
the Dockerfile copies every folder the build needs."""
import os
import re
import shutil
import subprocess
import tempfile

import shiplib
from discovery_stub import DiscoveryStub
from shiplib import Checks, container_args, find, one

NAMESPACE = "replica-guard-system"


def identity(obj):
    return (obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def kubectl_apply_names(stub, *source):
    proc = subprocess.run([shiplib.tool("kubectl"), "--kubeconfig", stub.kubeconfig, "--cache-dir",
                           os.path.join(stub.dir.name, "cache"), "apply", *source,
                           "--dry-run=client", "--validate=false", "-o", "name"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"kubectl apply {' '.join(source)} --dry-run=client: {proc.stderr}")
    return proc.stdout.split()


def check_apply_paths(checks):
    names, files = shiplib.manifest_files()
    with open(os.path.join(shiplib.MANIFESTS, "Kustomization"), encoding="utf-8") as f:
        kustomization = shiplib.yaml.safe_load(f)
    checks.equal(sorted(kustomization["resources"]), names,
                 "Kustomization resources vs the files `kubectl apply -f` reads")
    rendered = shiplib.kustomize(shiplib.MANIFESTS)
    by_id = {identity(o): o for o in rendered}
    checks.equal(sorted(by_id), sorted(identity(o) for o in files), "-k vs -f: the same objects")
    for obj in files:
        checks.equal(by_id.get(identity(obj)), obj, f"-k vs -f: {identity(obj)} is the same")
    # Order for -f: the Namespace first, the ServiceAccount before the Deployment that uses it.
    order = [o["kind"] for o in files]
    checks.equal(order[0], "Namespace", "-f: the Namespace comes first")
    checks.check(order.index("ServiceAccount") < order.index("Deployment"),
                 "-f: the ServiceAccount comes before the Deployment")
    with DiscoveryStub() as stub:
        via_f = kubectl_apply_names(stub, "-f", shiplib.MANIFESTS)
        via_k = kubectl_apply_names(stub, "-k", shiplib.MANIFESTS)
    checks.equal(len(via_f), len(files), "kubectl apply -f manifests/: objects sent")
    checks.equal(sorted(via_f), sorted(via_k), "kubectl apply -f and -k send the same objects")
    checks.check("namespace/replica-guard-system" in via_f, f"kubectl apply -f: no Namespace in {via_f}")


def check_objects(checks):
    objs = shiplib.kustomize(shiplib.MANIFESTS)
    deployment = one(objs, "Deployment")
    shiplib.pod_security_restricted(checks, "manifests", deployment)
    shiplib.check_wiring(checks, "manifests", objs)
    checks.equal(deployment["spec"]["replicas"], 2, "manifests: replicas")
    args = container_args(objs)
    for flag in ("--leader-elect", "--leader-election-namespace=$(POD_NAMESPACE)"):
        checks.check(flag in args, f"manifests: {flag} missing from {args}")
    checks.check(not any(a.startswith("--namespace=") for a in args), "manifests: watches every namespace")
    pod = deployment["spec"]["template"]["spec"]
    checks.equal(pod["serviceAccountName"], one(objs, "ServiceAccount")["metadata"]["name"],
                 "manifests: the pod runs as the ServiceAccount")
    checks.check(pod["containers"][0].get("resources", {}).get("requests"), "manifests: resource requests")
    for obj in objs:
        if obj["kind"] in ("Namespace", "ClusterRole", "ClusterRoleBinding"):
            continue
        # Reading the kubelets' node Leases is granted where they are; all else lives at home.
        node_leases = obj["metadata"]["name"] == "replica-guard-node-leases"
        checks.equal(obj["metadata"].get("namespace"), "kube-node-lease" if node_leases else NAMESPACE,
                     f"manifests: namespace of {identity(obj)}")
    labels = one(objs, "Namespace")["metadata"]["labels"]
    checks.equal(labels.get("pod-security.kubernetes.io/enforce"), "restricted",
                 "manifests: the namespace enforces the restricted Pod Security Standard")


def check_namespaced(checks):
    objs = shiplib.kustomize_namespaced()
    args = container_args(objs)
    checks.equal([a for a in args if a.startswith("--namespace=")], ["--namespace=default"],
                 "namespaced: --namespace flags")
    checks.check(not find(objs, "ClusterRoleBinding", "replica-guard"),
                 "namespaced: the cluster-wide binding of the watched-namespaces rules is gone")
    binding = find(objs, "RoleBinding", "replica-guard", "default")
    checks.check(len(binding) == 1 and binding[0]["roleRef"]["name"] == "replica-guard",
                 "namespaced: a RoleBinding to ClusterRole replica-guard in namespace default")
    checks.check(find(objs, "ClusterRoleBinding", "replica-guard-cluster"),
                 "namespaced: nodes stay readable cluster-wide")


def check_metrics_network_policy(checks):
    """The metrics-network-policy component is the chart's metrics.networkPolicy: the same rules,
    selecting the operator's pods."""
    objs = shiplib.kustomize_with("metrics-network-policy")
    policy = find(objs, "NetworkPolicy", "replica-guard-allow-metrics-traffic", NAMESPACE)
    checks.equal(len(policy), 1, "metrics-network-policy: NetworkPolicies")
    if len(policy) != 1:
        return
    pod_labels = one(objs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    selector = policy[0]["spec"]["podSelector"]["matchLabels"]
    checks.check(selector.items() <= pod_labels.items(),
                 f"metrics-network-policy: {selector} selects the operator's pods {pod_labels}")
    chart = shiplib.helm_template(sets=["metrics.networkPolicy.enabled=true"])
    chart_policy = [o for o in chart if o["kind"] == "NetworkPolicy"]
    checks.equal(len(chart_policy), 1, "chart: NetworkPolicies with metrics.networkPolicy.enabled")
    if len(chart_policy) == 1:
        checks.equal(policy[0]["spec"]["ingress"], chart_policy[0]["spec"]["ingress"],
                     "metrics-network-policy: the chart's ingress rules")


def check_own_overlay(checks):
    """The README's way for users: their own overlay with manifests/ as a resource, the
    namespaced component, and another image."""
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(shiplib.MANIFESTS, os.path.join(work, "manifests"))
        os.mkdir(os.path.join(work, "overlay"))
        with open(os.path.join(work, "overlay", "kustomization.yaml"), "w", encoding="utf-8") as f:
            f.write("resources: [../manifests]\ncomponents: [../manifests/namespaced]\n"
                    "images:\n  - name: replica-guard\n    newName: registry.example.com/rg\n"
                    "    newTag: 1.2.3\n")
        objs = shiplib.kustomize(os.path.join(work, "overlay"))
    container = one(objs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    checks.equal(container["image"], "registry.example.com/rg:1.2.3", "own overlay: image override")
    checks.check("--namespace=default" in container["args"], "own overlay: the namespaced component")


def check_versions(checks):
    root = shiplib.SOURCE_ROOT
    with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
        version = re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)
    with open(os.path.join(shiplib.CHART, "Chart.yaml"), encoding="utf-8") as f:
        chart = shiplib.yaml.safe_load(f)
    checks.equal(chart["appVersion"], version, "Chart.yaml appVersion vs meson.build version")
    image = one(shiplib.kustomize(shiplib.MANIFESTS), "Deployment")["spec"]["template"]["spec"]["containers"][0]["image"]
    checks.equal(image, f"replica-guard:{version}", "manifests image vs meson.build version")
    with open(os.path.join(root, "Dockerfile"), encoding="utf-8") as f:
        dockerfile = f.read()
    checks.check(f"ARG VERSION={version}\n" in dockerfile, "Dockerfile ARG VERSION vs meson.build version")


def check_dockerfile(checks):
    """The Dockerfile copies every folder the top-level meson.build descends into (it lists them
    to keep local build folders out), and stages the image with scripts/image.sh like the
    engine-free build."""
    root = shiplib.SOURCE_ROOT
    with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
        subdirs = set(re.findall(r"^\s*subdir\('([^'/]+)", f.read(), re.MULTILINE))
    with open(os.path.join(root, "Dockerfile"), encoding="utf-8") as f:
        dockerfile = f.read()
    copied = set(re.findall(r"^COPY (\S+) \1$", dockerfile, re.MULTILINE))
    checks.check(subdirs and subdirs <= copied,
                 f"Dockerfile: meson.build descends into {sorted(subdirs - copied)}, not copied")
    checks.check("scripts/image.sh rootfs " in dockerfile, "Dockerfile: stages with scripts/image.sh rootfs")
    checks.check(re.search(r"^USER 65532:65532$", dockerfile, re.MULTILINE), "Dockerfile: USER 65532")


def main():
    checks = Checks("check_manifests")
    check_apply_paths(checks)
    check_objects(checks)
    check_namespaced(checks)
    check_metrics_network_policy(checks)
    check_own_overlay(checks)
    check_versions(checks)
    check_dockerfile(checks)
    checks.done()


if __name__ == "__main__":
    main()
