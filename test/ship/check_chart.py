#!/usr/bin/env python3
"""Renders the Helm chart for each values variant (test/ship/values/) and checks what comes
out: the objects each variant must and must not produce, the operator's flags, the Prometheus
Operator objects behind the capabilities check, the RBAC rules that follow optional informers
(detectHPA, watchNamespaces), the dashboard, and that the default render
matches manifests/ (the two ways to install must run the same operator)."""
import json
import os
import re
import subprocess

import shiplib
from discovery_stub import DiscoveryStub
from shiplib import Checks, container_args, find, helm_template, one

MONITORING_API = "monitoring.coreos.com/v1"
# Metrics of the operator's contract that the dashboard must show.
DASHBOARD_METRICS = [
    "workqueue_depth", "workqueue_queue_duration_seconds_bucket", "workqueue_work_duration_seconds_bucket",
    "reflector_watch_events_total", "replica_guard_scale_patches_total",
    "replica_guard_desired_replicas", "replica_guard_serving_replicas",
    "replica_guard_stranded_replicas", "replica_guard_reconcile_total",
]
# Every metric of the operator's contract (shared/design.md and its issue); the dashboard and
# the alerts may use no other name (a typo would be a panel or an alert that never shows).
CONTRACT_METRICS = {
    "workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
    "workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
    "workqueue_longest_running_processor_seconds", "workqueue_retries_total",
    "reflector_watch_events_total", "reflector_items_total", "informer_cache_objects",
    "rest_client_requests_total", "replica_guard_reconcile_total",
    "replica_guard_reconcile_duration_seconds", "replica_guard_scale_patches_total",
    "replica_guard_surge_suppressed", "replica_guard_desired_replicas",
    "replica_guard_serving_replicas", "replica_guard_stranded_replicas",
    "leader_election_master_status", "replica_guard_suspect_nodes",
    "replica_guard_node_lease_renewal_gap_seconds",
    # Issue 21: the informers' backlogs.
    "informer_delta_fifo_depth", "informer_handler_pending_notifications",
    "informer_handler_notifications_total", "informer_handler_failures_total",
}
# PromQL words that look like metric names: functions, keywords, and label names.
PROMQL_WORDS = {"histogram_quantile", "sum", "max", "rate", "deriv", "by", "and", "or", "vector",
                "le", "job", "name", "namespace", "deployment", "resource", "type", "code",
                "method", "direction", "result", "pod", "label_values", "without", "reason",
                "increase", "unless", "on", "handler"}


def unknown_metrics(expr):
    """Metric-like names in a PromQL expression that are not in the contract."""
    expr = re.sub(r'"[^"]*"', "", expr)  # label values
    expr = re.sub(r"\[[^]]*\]", "", expr)  # range selectors
    names = set(re.findall(r"\b[a-z_][a-z0-9_]*\b", expr)) - PROMQL_WORDS
    base = {re.sub(r"_(bucket|sum|count)$", "", n) for n in names}
    return sorted(n for n in base if n not in CONTRACT_METRICS and not n.startswith("__"))


ALERTS = {"ReplicaGuardStrandedReplicas", "ReplicaGuardWorkqueueGrowing",
          "ReplicaGuardReconcileErrors", "ReplicaGuardNoLeader", "ReplicaGuardSurgeSuppressed",
          "ReplicaGuardInformerStalled"}


def kinds(objs):
    return sorted(o["kind"] for o in objs)


def chart_app_version():
    with open(os.path.join(shiplib.CHART, "Chart.yaml"), encoding="utf-8") as f:
        return shiplib.yaml.safe_load(f)["appVersion"]


def check_defaults(checks):
    objs = helm_template()
    # ClusterRoles: watched namespaces, cluster, metrics-auth (bound) and metrics-reader (for
    # the scrapers: unbound until metrics.readerServiceAccounts or the ServiceMonitor asks).
    checks.equal(kinds(objs), sorted(["ServiceAccount", "ClusterRole", "ClusterRole", "ClusterRole",
                                      "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding",
                                      "ClusterRoleBinding", "Role", "Role",
                                      "RoleBinding", "RoleBinding", "Deployment", "Service",
                                      "PodDisruptionBudget"]), "defaults: rendered kinds")
    deployment = one(objs, "Deployment")
    shiplib.pod_security_restricted(checks, "defaults", deployment)
    shiplib.check_wiring(checks, "defaults", objs)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    checks.equal(container["image"], f"replica-guard:{chart_app_version()}", "defaults: image")
    checks.equal(deployment["spec"]["replicas"], 2, "defaults: replicas")
    # A Deployment's selector is immutable: labels that change between chart versions in it
    # would make every `helm upgrade` fail.
    for selector in (deployment["spec"]["selector"]["matchLabels"],
                     one(objs, "Service")["spec"]["selector"],
                     one(objs, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"]):
        checks.check(not {"helm.sh/chart", "app.kubernetes.io/version"} & set(selector),
                     f"defaults: a selector with version labels breaks upgrades: {selector}")
    for namespaced in objs:
        if namespaced["kind"] in ("ClusterRole", "ClusterRoleBinding"):
            continue
        # Reading the kubelets' node Leases is granted where they are; all else lives at home.
        node_leases = namespaced["metadata"]["name"].endswith("-node-leases")
        checks.equal(namespaced["metadata"].get("namespace"),
                     "kube-node-lease" if node_leases else shiplib.RELEASE_NAMESPACE,
                     f"defaults: namespace of {namespaced['kind']} {namespaced['metadata']['name']}")

    # The chart's default install runs the same operator as manifests/.
    manifests = one(shiplib.kustomize(shiplib.MANIFESTS), "Deployment")
    checks.equal(container_args(objs), container_args([manifests]), "chart vs manifests: flags")
    mpod, cpod = manifests["spec"]["template"]["spec"], deployment["spec"]["template"]["spec"]
    mcontainer = mpod["containers"][0]
    for field in ("securityContext", "resources", "livenessProbe", "readinessProbe", "ports", "env"):
        checks.equal(container.get(field), mcontainer.get(field), f"chart vs manifests: container {field}")
    for field in ("securityContext", "tolerations", "terminationGracePeriodSeconds"):
        checks.equal(cpod.get(field), mpod.get(field), f"chart vs manifests: pod {field}")
    checks.equal(deployment["spec"]["strategy"], manifests["spec"]["strategy"],
                 "chart vs manifests: rollout strategy")


def check_monitoring(checks, label, objs, expect_labels=None):
    monitor = one(objs, "ServiceMonitor")
    service = one(objs, "Service")
    checks.check(shiplib.selects(monitor["spec"]["selector"]["matchLabels"],
                                 service["metadata"]["labels"]),
                 f"{label}: the ServiceMonitor does not select the metrics Service")
    endpoint = monitor["spec"]["endpoints"][0]
    checks.equal(endpoint["port"], service["spec"]["ports"][0]["name"], f"{label}: scraped port")
    checks.equal(endpoint["path"], "/metrics", f"{label}: scrape path")
    checks.equal(monitor["spec"]["namespaceSelector"]["matchNames"], [shiplib.RELEASE_NAMESPACE],
                 f"{label}: ServiceMonitor namespaceSelector")
    rule = one(objs, "PrometheusRule")
    alerts = {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"]}
    checks.equal(set(alerts), ALERTS, f"{label}: alerts")
    job = f'job="{service["metadata"]["name"]}"'
    for name, alert in alerts.items():
        checks.equal(unknown_metrics(alert["expr"]), [], f"{label}: {name} uses metrics outside the contract")
        checks.check(job in alert["expr"], f"{label}: {name} is not scoped to {job}: {alert['expr']}")
        checks.check(alert["labels"].get("severity") in ("warning", "critical"),
                     f"{label}: {name} has no severity")
        checks.check(alert["annotations"].get("summary") and alert["annotations"].get("description"),
                     f"{label}: {name} lacks summary or description")
    for kind in ("ServiceMonitor", "PrometheusRule"):
        labels = one(objs, kind)["metadata"]["labels"]
        for key, value in (expect_labels or {}).items():
            checks.equal(labels.get(key), value, f"{label}: {kind} label {key}")


def check_capabilities(checks):
    plain = helm_template()
    checks.check(not find(plain, "ServiceMonitor") and not find(plain, "PrometheusRule"),
                 "no monitoring.coreos.com/v1: ServiceMonitor/PrometheusRule must not render")
    served = helm_template(api_versions=[MONITORING_API])
    check_monitoring(checks, "monitoring.coreos.com/v1 served", served)
    forced = helm_template(values_file="monitoring-forced.yaml")
    check_monitoring(checks, "monitoring forced", forced,
                     expect_labels={"release": "kube-prometheus-stack"})
    off = helm_template(values_file="metrics-off.yaml", api_versions=[MONITORING_API])
    checks.equal([o["kind"] for o in off if o["kind"] in ("Service", "ServiceMonitor", "PrometheusRule")],
                 [], "metrics off: no Service, ServiceMonitor or PrometheusRule")
    checks.check("--metrics-bind-address=0" in container_args(off), "metrics off: --metrics-bind-address=0")
    ports = one(off, "Deployment")["spec"]["template"]["spec"]["containers"][0]["ports"]
    checks.equal([p["name"] for p in ports], ["health"], "metrics off: container ports")


def check_secure_metrics(checks):
    """HTTPS on 8443 by default; the ServiceMonitor scrapes with a bound scraper's token
    (`authorization`, never bearerTokenFile), verifying a given certificate's CA and skipping
    verification of the self-signed one; plain HTTP when asked; the NetworkPolicy only on request."""
    served = helm_template(api_versions=[MONITORING_API])
    service_port = one(served, "Service")["spec"]["ports"][0]
    checks.equal((service_port["name"], service_port["port"]), ("https", 8443), "secure: Service port")
    endpoint = one(served, "ServiceMonitor")["spec"]["endpoints"][0]
    checks.equal(endpoint.get("scheme"), "https", "secure: ServiceMonitor scheme")
    checks.check("bearerTokenFile" not in endpoint, "secure: no deprecated bearerTokenFile")
    token = endpoint.get("authorization", {}).get("credentials", {})
    secret = next((o for o in find(served, "Secret") if o["metadata"]["name"] == token.get("name")), None)
    checks.check(secret is not None and secret["type"] == "kubernetes.io/service-account-token"
                 and token.get("key") == "token", f"secure: the ServiceMonitor's token Secret {token}")
    scraper = secret["metadata"]["annotations"]["kubernetes.io/service-account.name"] if secret else None
    bound = [b for b in find(served, "ClusterRoleBinding") if b["roleRef"]["name"].endswith("-metrics-reader")]
    checks.check(any(s["name"] == scraper for b in bound for s in b["subjects"]),
                 f"secure: the scraper {scraper} is bound to metrics-reader")
    checks.equal(endpoint.get("tlsConfig"), {"insecureSkipVerify": True}, "secure: self-signed tlsConfig")
    checks.check("--metrics-cert-path" not in " ".join(container_args(served)), "secure: no certificate path")
    checks.check(not find(served, "NetworkPolicy"), "NetworkPolicy only on request")

    certified = helm_template(api_versions=[MONITORING_API], sets=["metrics.certSecret=rg-tls"])
    tls = one(certified, "ServiceMonitor")["spec"]["endpoints"][0]["tlsConfig"]
    checks.equal(tls.get("ca"), {"secret": {"name": "rg-tls", "key": "ca.crt"}}, "certSecret: CA")
    checks.check("insecureSkipVerify" not in tls, "certSecret: verified")
    pod = one(certified, "Deployment")["spec"]["template"]["spec"]
    checks.equal([v["secret"]["secretName"] for v in pod.get("volumes", [])], ["rg-tls"], "certSecret: volume")
    mount = pod["containers"][0]["volumeMounts"][0]
    checks.check(f"--metrics-cert-path={mount['mountPath']}" in container_args(certified) and mount["readOnly"],
                 "certSecret: --metrics-cert-path is the read-only mount")

    plain = helm_template(api_versions=[MONITORING_API], sets=["metrics.secure=false"])
    checks.check("--metrics-secure=false" in container_args(plain), "plain: --metrics-secure=false")
    checks.equal(one(plain, "ServiceMonitor")["spec"]["endpoints"][0].get("scheme"), "http", "plain: scheme")
    checks.check(not [o for o in find(plain, "ClusterRole") if "metrics" in o["metadata"]["name"]],
                 "plain: no metrics-auth or metrics-reader ClusterRole")

    readers = helm_template(sets=["metrics.readerServiceAccounts[0].name=prometheus-k8s",
                                  "metrics.readerServiceAccounts[0].namespace=monitoring",
                                  "metrics.networkPolicy.enabled=true"])
    subjects = [s for b in find(readers, "ClusterRoleBinding") if b["roleRef"]["name"].endswith("-metrics-reader")
                for s in b["subjects"]]
    checks.equal(subjects, [{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}],
                 "readerServiceAccounts: bound to metrics-reader")
    policy = one(readers, "NetworkPolicy")["spec"]
    checks.equal(policy["ingress"][0], {"from": [{"namespaceSelector": {"matchLabels": {"metrics": "enabled"}}}],
                                        "ports": [{"port": 8443, "protocol": "TCP"}]},
                 "NetworkPolicy: the metrics port from labelled namespaces only")


def check_namespaced(checks):
    objs = helm_template(values_file="namespaced.yaml")
    watched = ["team-a", "team-b", shiplib.RELEASE_NAMESPACE]
    args = container_args(objs)
    checks.equal([a for a in args if a.startswith("--namespace=")],
                 [f"--namespace={n}" for n in watched], "namespaced: --namespace flags")
    checks.check("--deployment-selector=tier in (web,api),!legacy" in args,
                 f"namespaced: --deployment-selector passed verbatim: {args}")
    for namespace in watched:
        roles = [r for r in find(objs, "Role", namespace=namespace)
                 if r["metadata"]["labels"].get("replica-guard.io/permissions") == "watched-namespaces"]
        checks.equal(len(roles), 1, f"namespaced: watched-namespaces Role in {namespace}")
    cluster_roles = [r["metadata"]["labels"].get("replica-guard.io/permissions")
                     for r in find(objs, "ClusterRole")]
    checks.equal(sorted(cluster_roles), ["cluster", "metrics-auth", "metrics-reader"],
                 "namespaced: only the cluster-scoped ClusterRoles")


def grants_hpa(role):
    return any("horizontalpodautoscalers" in r.get("resources", []) for r in role.get("rules", []))


def role_rules_without_hpa(role):
    return [r for r in role["rules"] if "horizontalpodautoscalers" not in r.get("resources", [])]


def watched_roles(objs, kind):
    return [r for r in find(objs, kind)
            if r["metadata"]["labels"].get("replica-guard.io/permissions") == "watched-namespaces"]


def check_optional_informers(checks):
    """detectHPA, cacheConsistencyCheckPeriod and watchNamespaces: the operator's flags and the
    RBAC rules change together (a flag without its rule would fail the permission self-check; a
    rule without its flag would grant more than the operator uses)."""
    defaults = helm_template()
    args = container_args(defaults)
    checks.check(not any(a.startswith("--detect-hpa") for a in args), f"defaults: no --detect-hpa flag: {args}")
    checks.check(not any(a.startswith("--cache-consistency-check-period") for a in args),
                 f"defaults: no --cache-consistency-check-period flag: {args}")
    default_role = one(watched_roles(defaults, "ClusterRole"), "ClusterRole")
    checks.check(grants_hpa(default_role), "defaults: the ClusterRole grants HorizontalPodAutoscalers")
    hpa_rule = [r for r in default_role["rules"] if "horizontalpodautoscalers" in r["resources"]]
    checks.equal(hpa_rule, [{"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"],
                             "verbs": ["list", "watch"]}], "defaults: the HPA rule")
    for role in find(helm_template(values_file="namespaced.yaml"), "Role"):
        if role["metadata"]["labels"].get("replica-guard.io/permissions") == "watched-namespaces":
            checks.check(grants_hpa(role), f"namespaced: Role in {role['metadata']['namespace']} grants HPAs")

    off = helm_template(values_file="hpa-off.yaml")
    args = container_args(off)
    checks.equal([a for a in args if a.startswith("--detect-hpa")], ["--detect-hpa=false"],
                 "detectHPA=false: flags")
    role = one(watched_roles(off, "ClusterRole"), "ClusterRole")
    checks.check(not grants_hpa(role), f"detectHPA=false: the ClusterRole still grants HPAs: {role['rules']}")
    checks.equal([r for r in role["rules"] if r not in default_role["rules"]], [],
                  "detectHPA=false: rules beyond the defaults'")
    checks.equal(len(role["rules"]), len(default_role["rules"]) - 1, "detectHPA=false: only the HPA rule goes")

    check = helm_template(values_file="cache-check.yaml")
    args = container_args(check)
    checks.equal([a for a in args if a.startswith("--cache-consistency-check-period")],
                 ["--cache-consistency-check-period=10m"], "cacheConsistencyCheckPeriod: flags")
    checks.equal(one(watched_roles(check, "ClusterRole"), "ClusterRole")["rules"], default_role["rules"],
                 "cacheConsistencyCheckPeriod: the same rules (a relist uses list, already granted)")

    several = helm_template(values_file="namespaced-hpa-off.yaml")
    watched = ["shop", "blog", "payments"]
    args = container_args(several)
    checks.equal([a for a in args if a.startswith("--namespace=")], [f"--namespace={n}" for n in watched],
                 "several namespaces: --namespace flags")
    checks.check("--detect-hpa=false" in args, f"several namespaces: --detect-hpa=false: {args}")
    checks.equal(watched_roles(several, "ClusterRole"), [], "several namespaces: no cluster-wide namespaced rules")
    roles = watched_roles(several, "Role")
    checks.equal(sorted(r["metadata"]["namespace"] for r in roles), sorted(watched),
                 "several namespaces: one Role per watched namespace")
    for role in roles:
        namespace = role["metadata"]["namespace"]
        checks.check(not grants_hpa(role), f"several namespaces: Role in {namespace} grants HPAs")
        checks.equal(role["rules"], role_rules_without_hpa(default_role), f"several namespaces: rules in {namespace}")
        bindings = [b for b in find(several, "RoleBinding", namespace=namespace)
                    if b["roleRef"]["name"] == role["metadata"]["name"] and b["roleRef"]["kind"] == "Role"]
        checks.equal(len(bindings), 1, f"several namespaces: RoleBinding in {namespace}")
    checks.check(not find(several, "Role", namespace="default") and not find(several, "RoleBinding", namespace="default"),
                 "several namespaces: nothing granted in an unwatched namespace")


def check_flags(checks):
    checks.check("--dry-run" in container_args(helm_template(values_file="dry-run.yaml")),
                 "dry-run: --dry-run flag")
    checks.check("--dry-run" not in container_args(helm_template()), "defaults: no --dry-run flag")
    objs = helm_template(values_file="everything.yaml")
    deployment = one(objs, "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    container = spec["containers"][0]
    checks.equal(container["image"], "registry.example.com/platform/replica-guard@sha256:"
                 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "everything: image")
    checks.equal(container_args(objs), [
        "--metrics-bind-address=:9090", "--metrics-cert-path=/etc/replica-guard/metrics-certs",
        "--health-probe-bind-address=:9091", "--leader-elect",
        "--leader-election-id=rg-lock", "--leader-election-namespace=$(POD_NAMESPACE)",
        "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
        "--leader-elect-retry-period=4s", "--namespace=prod",
        "--deployment-selector=app.kubernetes.io/part-of=shop", "--workers=6",
        "--sync-period=1h", "--graceful-shutdown-timeout=50s", "--watch-list=false",
        "--kube-api-qps=20", "--kube-api-burst=40",
        "--node-grace-period=45s", "--node-lease-grace=24s", "--scale-down-delay=2m", "--default-max-surge=2",
        "--max-unhealthy-node-fraction=0.4", "--max-total-surge=20", "--log-format=text", "-vv",
        "--some-future-flag=1"], "everything: flags")
    checks.equal(deployment["spec"]["replicas"], 3, "everything: replicas")
    checks.equal(spec["terminationGracePeriodSeconds"], 60, "everything: terminationGracePeriodSeconds")
    checks.equal(spec["serviceAccountName"], "guard", "everything: ServiceAccount")
    checks.equal(one(objs, "ServiceAccount")["metadata"]["name"], "guard", "everything: ServiceAccount name")
    checks.equal(spec["priorityClassName"], "system-cluster-critical", "everything: priorityClassName")
    checks.equal(spec["imagePullSecrets"], [{"name": "pull-secret"}], "everything: imagePullSecrets")
    checks.equal(one(objs, "PodDisruptionBudget")["spec"]["maxUnavailable"], 2, "everything: PDB")
    checks.equal(one(objs, "Service")["spec"]["ports"][0]["port"], 9090, "everything: Service port")
    checks.check({"name": "TZ", "value": "UTC"} in container["env"], "everything: extraEnv")
    shiplib.check_wiring(checks, "everything", objs)
    shiplib.pod_security_restricted(checks, "everything", deployment)

    single = helm_template(values_file="single-replica.yaml")
    args = container_args(single)
    checks.check(not any(a.startswith("--leader-elect") for a in args), "single replica: no leader flags")
    checks.check(not find(single, "PodDisruptionBudget"), "single replica: no PodDisruptionBudget")
    checks.check(not [r for r in find(single, "Role")
                      if r["metadata"]["labels"].get("replica-guard.io/permissions") == "leader-election"],
                 "single replica: no leader-election Role")
    alerts = {r["alert"] for g in one(single, "PrometheusRule")["spec"]["groups"] for r in g["rules"]}
    checks.equal(alerts, ALERTS - {"ReplicaGuardNoLeader"}, "single replica: alerts")

    # Two replicas without leader election would both scale the same Deployments.
    proc = shiplib.run([shiplib.tool("helm"), "template", "rg", shiplib.CHART,
                        "--set", "leaderElection.enabled=false"], check=False)
    checks.check(proc.returncode != 0 and "leaderElection.enabled" in proc.stderr,
                 f"replicas 2 without leader election must fail naming the value: {proc.stderr}")


def check_dashboard(checks):
    checks.check(not find(helm_template(), "ConfigMap"), "defaults: no dashboard ConfigMap")
    objs = helm_template(values_file="dashboard.yaml")
    config_map = one(objs, "ConfigMap")
    checks.equal(config_map["metadata"]["namespace"], "monitoring", "dashboard: namespace")
    checks.equal(config_map["metadata"]["labels"].get("grafana_dashboard"), "1", "dashboard: sidecar label")
    dashboard = json.loads(config_map["data"]["replica-guard.json"])
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    exprs = " ".join(t["expr"] for p in panels for t in p["targets"])
    for panel in panels:
        for target in panel["targets"]:
            checks.equal(unknown_metrics(target["expr"]), [],
                         f"dashboard: panel {panel['title']} uses metrics outside the contract")
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            checks.equal(unknown_metrics(variable["query"]["query"]), [],
                         f"dashboard: variable {variable['name']} uses metrics outside the contract")
    for metric in DASHBOARD_METRICS:
        checks.check(re.search(rf"\b{metric}\b", exprs), f"dashboard: no panel shows {metric}")
    ids = [p["id"] for p in dashboard["panels"]]
    checks.equal(len(ids), len(set(ids)), "dashboard: unique panel ids")
    cells = set()
    for panel in dashboard["panels"]:
        pos = panel["gridPos"]
        checks.check(pos["x"] + pos["w"] <= 24, f"dashboard: panel {panel['title']} is wider than the grid")
        area = {(pos["x"] + dx, pos["y"] + dy) for dx in range(pos["w"]) for dy in range(pos["h"])}
        checks.check(not area & cells, f"dashboard: panel {panel['title']} overlaps another")
        cells |= area
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    checks.check({"datasource", "job", "namespace", "deployment"} <= variables, "dashboard: variables")


def check_notes(checks):
    proc = subprocess.run([shiplib.tool("helm"), "install", "rg", shiplib.CHART, "--dry-run=client",
                           "--namespace", shiplib.RELEASE_NAMESPACE, "--values",
                           os.path.join(shiplib.VALUES, "dry-run.yaml")], capture_output=True, text=True)
    checks.check(proc.returncode == 0, f"helm install --dry-run=client: {proc.stderr}")
    notes = proc.stdout.split("NOTES:", 1)[-1]
    checks.check("kubectl annotate deployment NAME -n NAMESPACE replica-guard.io/enabled=true" in notes,
                 "NOTES: how to opt a Deployment in")
    checks.check("DRY RUN" in notes, "NOTES: says it only reports in dry-run")
    checks.check("monitoring.force=true" in notes, "NOTES: says how to get the monitoring objects")
    checks.check("-metrics-reader" in notes and "https://localhost:8443/metrics" in notes,
                 "NOTES: how to read the secure metrics")


def check_kubectl_accepts(checks):
    """kubectl maps every object of every variant to a resource (asked of a loopback discovery
    stub that also serves monitoring.coreos.com/v1) and would apply it."""
    with DiscoveryStub() as stub:
        for file in sorted(os.listdir(shiplib.VALUES)):
            if not file.endswith(".yaml"):
                continue
            rendered = shiplib.run([shiplib.tool("helm"), "template", shiplib.RELEASE, shiplib.CHART,
                                    "--namespace", shiplib.RELEASE_NAMESPACE, "--api-versions",
                                    MONITORING_API, "--values", os.path.join(shiplib.VALUES, file)]).stdout
            proc = subprocess.run([shiplib.tool("kubectl"), "--kubeconfig", stub.kubeconfig,
                                   "--cache-dir", os.path.join(stub.dir.name, "cache"), "apply", "-f", "-",
                                   "--dry-run=client", "--validate=false", "-o", "name"],
                                  input=rendered, capture_output=True, text=True)
            expected = len(shiplib.objects(rendered))
            checks.check(proc.returncode == 0 and len(proc.stdout.split()) == expected,
                         f"kubectl apply --dry-run=client of {file}: {proc.stderr or proc.stdout}")


def main():
    checks = Checks("check_chart")
    check_defaults(checks)
    check_capabilities(checks)
    check_secure_metrics(checks)
    check_namespaced(checks)
    check_optional_informers(checks)
    check_flags(checks)
    check_dashboard(checks)
    check_notes(checks)
    check_kubectl_accepts(checks)
    checks.done()


if __name__ == "__main__":
    main()
