#!/usr/bin/env python3
"""RBAC drift test: the Helm chart must grant replica-guard's ServiceAccount exactly the
permissions manifests/20-rbac.yaml (the one source of the rules) grants, in the same scopes, those
scopes must be the ones the operator's informers watch (its --namespace flags), and both must
equal what the operator itself requires for the flags they render (operator/permissions.cpp, the
list its startup self-check asks the API server about, printed by ship_parse_flags).

Permissions are compared as effective grants: (scope, apiGroup, resource, verb) for every
binding of the ServiceAccount, so a rule moved between roles or split in two is not drift, but a
verb, a resource or a scope more or less is.

    test/ship/rbac_drift.py PARSE_FLAGS           run the test
    test/ship/rbac_drift.py PARSE_FLAGS --print   print the effective permissions of manifests/
"""
import os
import subprocess
import sys

import shiplib
from shiplib import Checks, find

OWN = "<own namespace>"
NODE_LEASES = "kube-node-lease"
CLUSTER = "<cluster>"
# Verbs and resources replica-guard never needs; any of them in a role is a least-privilege bug.
FORBIDDEN_VERBS = {"*", "delete", "deletecollection", "escalate", "bind", "impersonate"}
FORBIDDEN_RESOURCES = {"*", "secrets", "configmaps", "serviceaccounts/token", "pods/exec"}


def service_account(objs):
    """The operator's ServiceAccount: the one its Deployment runs as (the chart may also render a
    scraper's, for the ServiceMonitor's token)."""
    accounts = find(objs, "ServiceAccount")
    deployments = find(objs, "Deployment")
    if deployments and len(accounts) > 1:
        name = deployments[0]["spec"]["template"]["spec"].get("serviceAccountName")
        accounts = [a for a in accounts if a["metadata"]["name"] == name]
    if len(accounts) != 1:
        raise AssertionError(f"expected one ServiceAccount of the operator in the render, found {len(accounts)}")
    meta = accounts[0]["metadata"]
    return meta["name"], meta["namespace"]


def is_metrics_reader(role):
    """The role for the scrapers of the secure /metrics: not replica-guard's own permissions."""
    return role["metadata"].get("labels", {}).get("replica-guard.io/permissions") == "metrics-reader"


def check_metrics_reader(checks, label, objs):
    """One metrics-reader ClusterRole granting exactly get on /metrics, never bound to the
    operator itself."""
    readers = [r for r in find(objs, "ClusterRole") if is_metrics_reader(r)]
    checks.equal(len(readers), 1, f"{label}: metrics-reader ClusterRoles")
    for reader in readers:
        checks.equal(reader.get("rules"), [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
                     f"{label}: the metrics-reader's rules")
        sa_name, sa_namespace = service_account(objs)
        for binding in find(objs, "ClusterRoleBinding"):
            if binding["roleRef"]["name"] == reader["metadata"]["name"]:
                checks.check(not any(s.get("name") == sa_name and s.get("namespace") == sa_namespace
                                     for s in binding.get("subjects", [])),
                             f"{label}: the operator itself may read /metrics")


def expand(rules, where):
    """(apiGroup, resource, verb) triples of RBAC rules; rejects what replica-guard never uses."""
    triples = set()
    for rule in rules or []:
        if rule.get("resourceNames") or rule.get("nonResourceURLs"):
            raise AssertionError(f"{where}: unexpected resourceNames/nonResourceURLs in {rule}")
        for group in rule.get("apiGroups", []):
            for resource in rule.get("resources", []):
                for verb in rule.get("verbs", []):
                    triples.add((group, resource, verb))
    return triples


def effective(objs):
    """The ServiceAccount's grants: {(scope, group, resource, verb)}; scope is CLUSTER, OWN (the
    ServiceAccount's namespace) or a namespace name. Dangling or unused roles are errors."""
    sa_name, sa_namespace = service_account(objs)
    cluster_roles = {o["metadata"]["name"]: o for o in find(objs, "ClusterRole") if not is_metrics_reader(o)}
    readers = {o["metadata"]["name"] for o in find(objs, "ClusterRole") if is_metrics_reader(o)}
    roles = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in find(objs, "Role")}
    used = set()
    grants = set()

    def binds_sa(binding):
        return any(s.get("kind") == "ServiceAccount" and s.get("name") == sa_name
                   and s.get("namespace") == sa_namespace for s in binding.get("subjects", []))

    for binding in find(objs, "ClusterRoleBinding"):
        if not binds_sa(binding) or binding["roleRef"]["name"] in readers:
            continue  # the scrapers' role: check_metrics_reader
        ref = binding["roleRef"]
        if ref["kind"] != "ClusterRole" or ref["name"] not in cluster_roles:
            raise AssertionError(f"ClusterRoleBinding {binding['metadata']['name']} refers to a "
                                 f"missing {ref['kind']} {ref['name']}")
        used.add(("ClusterRole", ref["name"]))
        for triple in expand(cluster_roles[ref["name"]]["rules"], ref["name"]):
            grants.add((CLUSTER,) + triple)
    for binding in find(objs, "RoleBinding"):
        if not binds_sa(binding):
            continue
        namespace = binding["metadata"]["namespace"]
        ref = binding["roleRef"]
        if ref["kind"] == "ClusterRole" and ref["name"] in cluster_roles:
            role, key = cluster_roles[ref["name"]], ("ClusterRole", ref["name"])
        elif ref["kind"] == "Role" and (namespace, ref["name"]) in roles:
            role, key = roles[(namespace, ref["name"])], ("Role", namespace, ref["name"])
        else:
            raise AssertionError(f"RoleBinding {namespace}/{binding['metadata']['name']} refers to "
                                 f"a missing {ref['kind']} {ref['name']}")
        used.add(key)
        scope = OWN if namespace == sa_namespace else namespace
        for triple in expand(role["rules"], ref["name"]):
            grants.add((scope,) + triple)
    unused = ({("ClusterRole", n) for n in cluster_roles} | {("Role",) + k for k in roles}) - used
    if unused:
        raise AssertionError(f"roles bound to nothing: {sorted(unused)}")
    return grants


def watched_scopes(objs):
    """Where the informers list and watch, from the Deployment's --namespace flags."""
    _, own = service_account(objs)
    namespaces = {a.split("=", 1)[1] for a in shiplib.container_args(objs)
                  if a.startswith("--namespace=")}
    return {OWN if n == own else n for n in namespaces} if namespaces else {CLUSTER}


def show(grants):
    return "\n".join("  " + " ".join(g or '""' for g in grant) for grant in sorted(grants))


def compare(checks, label, actual, expected):
    missing, extra = expected - actual, actual - expected
    checks.check(not missing and not extra,
                 f"{label}: permissions drift from manifests/\n"
                 f" missing:\n{show(missing) or '  -'}\n extra:\n{show(extra) or '  -'}")


def check_render(checks, label, objs):
    """Least privilege and scope of one render (manifests or chart)."""
    grants = effective(objs)
    bad = {g for g in grants if g[3] in FORBIDDEN_VERBS or g[2] in FORBIDDEN_RESOURCES}
    checks.check(not bad, f"{label}: grants it never needs:\n{show(bad)}")
    # The informers' resources are readable exactly where they watch, and nowhere else.
    for group, resource in (("apps", "deployments"), ("", "pods")):
        scopes = {g[0] for g in grants if g[1:] == (group, resource, "watch")}
        checks.equal(scopes, watched_scopes(objs), f"{label}: where it may watch {resource}")
    checks.check((CLUSTER, "", "nodes", "watch") in grants,
                 f"{label}: nodes are cluster-scoped: watch must be granted cluster-wide")
    # Node Leases are read in kube-node-lease only, and never written there.
    node_leases = {g for g in grants if g[0] == NODE_LEASES}
    checks.check(node_leases <= {(NODE_LEASES, "coordination.k8s.io", "leases", v)
                                 for v in ("list", "watch")},
                 f"{label}: more than list/watch leases in {NODE_LEASES}:\n{show(node_leases)}")
    checks.check(not {g for g in grants if g[1:3] == ("coordination.k8s.io", "leases")
                      and g[3] in ("list", "watch") and g[0] != NODE_LEASES},
                 f"{label}: leases may be listed or watched only in {NODE_LEASES}")
    return grants


def required(parse_flags, objs):
    """What the operator requires for the flags `objs` render: {(scope, group, resource, verb)}."""
    _, own = service_account(objs)
    result = subprocess.run([parse_flags, *shiplib.container_args(objs)], capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"the operator rejects the rendered flags: {result.stderr.strip()}")
    wanted = set()
    for line in result.stdout.splitlines():
        if line.startswith("permission="):
            scope, group, resource, verb = line[len("permission="):].split(" ")
            scope = CLUSTER if scope == "-" else OWN if scope in (own, "$(POD_NAMESPACE)") else scope
            wanted.add((scope, "" if group == "-" else group, resource, verb))
    return wanted


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: rbac_drift.py PARSE_FLAGS [--print]")
    parse_flags = sys.argv[1]
    manifests = shiplib.kustomize(shiplib.MANIFESTS)
    if "--print" in sys.argv:
        print(show(effective(manifests)))
        return
    checks = Checks("rbac_drift")
    _, files = shiplib.manifest_files()
    source = check_render(checks, "manifests (-k)", manifests)
    compare(checks, "what the operator requires (cluster-wide)", required(parse_flags, manifests), source)
    compare(checks, "manifests (-f)", check_render(checks, "manifests (-f)", files), source)
    chart = check_render(checks, "chart (cluster-wide)", shiplib.helm_template())
    compare(checks, "chart (cluster-wide)", chart, source)
    check_metrics_reader(checks, "manifests (-k)", manifests)
    check_metrics_reader(checks, "chart (cluster-wide)", shiplib.helm_template())

    # Plain metrics (metrics.secure false, --metrics-secure=false): the reviews' grants go.
    plain = shiplib.helm_template(sets=["metrics.secure=false"])
    plain_grants = check_render(checks, "chart (metrics.secure false)", plain)
    compare(checks, "what the operator requires (metrics.secure false)", required(parse_flags, plain),
            plain_grants)
    compare(checks, "chart (metrics.secure false)", plain_grants,
            {g for g in source if g[1] not in ("authentication.k8s.io", "authorization.k8s.io")})

    # Without the node Lease signal (policy.nodeLeaseGrace "0") its grants go, and nothing else.
    no_leases = shiplib.helm_template(values_file="node-leases-off.yaml")
    no_lease_grants = check_render(checks, "chart (nodeLeaseGrace 0)", no_leases)
    compare(checks, "what the operator requires (nodeLeaseGrace 0)",
            required(parse_flags, no_leases), no_lease_grants)
    compare(checks, "chart (nodeLeaseGrace 0)", no_lease_grants,
            {g for g in source if g[0] != NODE_LEASES})

    # --taint-suspect-nodes: get and patch on nodes, cluster-wide, and nothing else more; the
    # chart's admission policy is the manifests' one.
    tainting = shiplib.kustomize_with("suspect-node-taints")
    taint_grants = check_render(checks, "manifests (suspect-node-taints)", tainting)
    compare(checks, "what the operator requires (--taint-suspect-nodes)", required(parse_flags, tainting),
            taint_grants)
    checks.equal(taint_grants - source, {(CLUSTER, "", "nodes", "get"), (CLUSTER, "", "nodes", "patch")},
                 "suspect-node-taints: what it adds")
    chart_tainting = shiplib.helm_template(sets=["actions.taintSuspectNodes=true",
                                                 "actions.restrictNodePatches=true",
                                                 "fullnameOverride=replica-guard"])
    compare(checks, "chart (actions.taintSuspectNodes)",
            check_render(checks, "chart (actions.taintSuspectNodes)", chart_tainting), taint_grants)
    with open(os.path.join(shiplib.MANIFESTS, "suspect-node-taints", "validating-admission-policy.yaml"),
              encoding="utf-8") as f:
        policy = {o["kind"]: o["spec"] for o in shiplib.objects(f.read())}
    checks.equal({o["kind"]: o["spec"] for o in chart_tainting if o["kind"].startswith("ValidatingAdmission")},
                 policy, "the chart's ValidatingAdmissionPolicy is the manifests' one")

    # --mark-suspect-pods-not-ready: patch on pods/status where it watches, and nothing else more,
    # cluster-wide (manifests' component, chart) and in each watched namespace (chart).
    marking = shiplib.kustomize_with("suspect-pod-marks")
    mark_grants = check_render(checks, "manifests (suspect-pod-marks)", marking)
    compare(checks, "what the operator requires (--mark-suspect-pods-not-ready)",
            required(parse_flags, marking), mark_grants)
    checks.equal(mark_grants - source, {(CLUSTER, "", "pods/status", "patch")},
                 "suspect-pod-marks: what it adds")
    chart_marking = shiplib.helm_template(sets=["actions.markSuspectPodsNotReady=true"])
    compare(checks, "chart (actions.markSuspectPodsNotReady)",
            check_render(checks, "chart (actions.markSuspectPodsNotReady)", chart_marking), mark_grants)
    chart_marking_namespaced = shiplib.helm_template(
        sets=["actions.markSuspectPodsNotReady=true", "watchNamespaces={default}"])
    compare(checks, "what the operator requires (markSuspectPodsNotReady, namespaced)",
            required(parse_flags, chart_marking_namespaced),
            check_render(checks, "chart (markSuspectPodsNotReady, namespaced)", chart_marking_namespaced))

    # --namespace mode: the same rules, granted in the watched namespace instead of cluster-wide.
    namespaced = shiplib.kustomize_namespaced()
    namespaced_grants = check_render(checks, "manifests (namespaced)", namespaced)
    compare(checks, "what the operator requires (namespaced)", required(parse_flags, namespaced),
            namespaced_grants)
    chart_namespaced = shiplib.helm_template(sets=["watchNamespaces={default}"])
    compare(checks, "chart (namespaced)",
            check_render(checks, "chart (namespaced)", chart_namespaced), namespaced_grants)
    as_cluster = {(CLUSTER if g[0] == "default" else g[0],) + g[1:] for g in namespaced_grants}
    compare(checks, "manifests (namespaced, as if cluster-wide)", as_cluster, source)

    # Several namespaces: one grant set per namespace, none cluster-wide.
    several = shiplib.helm_template(values_file="namespaced.yaml")
    check_render(checks, "chart (values/namespaced.yaml)", several)
    checks.done()


if __name__ == "__main__":
    main()
