#!/usr/bin/env python3
"""replica-guard under the ServiceAccount of a helm-installed release, so the chart's RBAC is
tested by the operator itself rather than read: helm 4 installs the chart into kube-sim (HTTPS,
RBAC enforced), the operator binary runs here with a `kubectl create token` of the release's
ServiceAccount and with the command line of the release's Deployment (its $(POD_NAMESPACE)
expanded as the kubelet does, its servers moved to 127.0.0.1 ephemeral ports). It must pass its
permission self-check (logged, and /readyz 200), hold the leader Lease in the release namespace,
and scale a guarded Deployment up for a failed node and back after recovery; its secure /metrics
(the release's own flags, HTTPS with the review permissions the chart grants) must answer 200 to a
ServiceAccount token bound to the release's metrics-reader ClusterRole -- by hand for the default
release, through metrics.readerServiceAccounts for the second -- and 401 without a token. Three times: the
default cluster-wide release (a ClusterRole), a release watching one namespace (a Role there), whose
token must be refused outside it, and a release with actions.taintSuspectNodes and
actions.markSuspectPodsNotReady, which must also taint the failed node and untaint it, mark its
guarded pods NotReady (the kubelet puts them back once it is back), and whose pre-delete hook (run
here: kube-sim has no Job controller) removes a taint left behind. The first two must refuse to
start with either action's flag added, naming the permission their chart did not grant. A rule the
chart lacks fails here; the test knows no rule list.
Skips (77) without kubectl or helm.

Usage: helm_release.py BUILD_DIR"""
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.environ.get("RG_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from kube_sim_session import Checks, KubeSim, deployment_manifest, stop, wait_for  # noqa: E402

SKIP = 77
CHART = os.path.join(ROOT, "charts", "replica-guard")
# Short policy timings, set through the chart's values so that its rendered flags drive the test.
FAST_POLICY = ["--set", "policy.nodeGracePeriod=1s", "--set", "policy.scaleDownDelay=1s"]
SUSPECT_TAINT = "replica-guard.io/suspect"


def tool(name):
    tools_bin = os.environ.get("RG_TOOLS_BIN", os.path.join(ROOT, ".tools", "bin"))
    return shutil.which(name, path=os.pathsep.join([tools_bin, os.environ.get("PATH", "")]))


class Helm:
    """helm against kube-sim, with its cache, config and data under the session's folder."""

    def __init__(self, binary, sim):
        self.binary, self.sim = binary, sim
        self.env = dict(os.environ, **{f"HELM_{kind}_HOME": os.path.join(sim.work, "helm", kind.lower())
                                       for kind in ("CACHE", "CONFIG", "DATA")})

    def __call__(self, *args):
        result = subprocess.run([self.binary, "--kubeconfig", self.sim.kubeconfig, *args], capture_output=True,
                                text=True, env=self.env, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"helm {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout


def expand(arg, env):
    """$(VAR) references of a container argument, expanded as the kubelet does."""
    def value(match):
        if match.group(1) not in env:
            raise RuntimeError(f"the chart's argument {arg!r} refers to $({match.group(1)}), which the "
                               "container's env does not define")
        return env[match.group(1)]
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", value, arg)


def operator_command_line(deployment):
    """The replica-guard container's args of the release's Deployment, to run here: env values
    and metadata.namespace fields expanded, the metrics server (as the release configures it) and
    the probes on 127.0.0.1:0."""
    container = next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "replica-guard")
    env = {}
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = var["value"]
        elif var.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.namespace":
            env[var["name"]] = deployment["metadata"]["namespace"]
    moved = {"--metrics-bind-address": "127.0.0.1:0", "--health-probe-bind-address": "127.0.0.1:0"}
    args = []
    for arg in container.get("args", []):
        flag = arg.split("=", 1)[0]
        args.append(f"{flag}={moved[flag]}" if flag in moved else expand(arg, env))
    return args


def log_records(text):
    """The operator's log lines (the chart asks for --log-format=json) as dicts."""
    records = []
    for line in text.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            records.append({"msg": line})
    return records


def readyz(address):
    try:
        with urllib.request.urlopen(f"http://{address}/readyz?verbose", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def scrape(url, token=None):
    """(status, body) of a GET of the secure /metrics (self-signed certificate: unverified)."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10, context=ssl._create_unverified_context()) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def check_scrape(checks, label, sim, name, release, namespace, bind_by_hand):
    """The release's secure /metrics answers a token bound to its metrics-reader ClusterRole
    (bound here by hand, or by the chart's metrics.readerServiceAccounts) and refuses no token."""
    service = sim.get("service", "-n", namespace, "-l", f"app.kubernetes.io/instance={release}")["items"]
    ports = [p for s in service for p in s["spec"]["ports"]]
    checks.check(f"{label}: the metrics Service port is https 8443",
                 [(p["name"], p["port"]) for p in ports] == [("https", 8443)], str(ports))
    address = next((r.get("address") for r in log_records(sim.log(name))
                    if r.get("msg") == "serving" and r.get("endpoints") == "/metrics"
                    and r.get("scheme") == "https"), None)
    if not checks.check(f"{label}: the operator serves /metrics over HTTPS", address is not None, sim.log(name)[-1500:]):
        return
    reader = f"{release}-replica-guard-metrics-reader"
    if bind_by_hand:
        sim.run("create", "clusterrolebinding", f"{release}-prometheus", f"--clusterrole={reader}",
                "--serviceaccount=monitoring:prometheus")
    token = sim.run("create", "token", "prometheus", "-n", "monitoring").strip()
    status, body = scrape(f"https://{address}/metrics", token)
    checks.check(f"{label}: a token bound to {reader} scrapes /metrics (200, workqueue metrics)",
                 status == 200 and "workqueue_depth{" in body, f"{status}: {body[:300]}")
    status, body = scrape(f"https://{address}/metrics")
    checks.check(f"{label}: no token: 401", status == 401, f"{status}: {body}")
    if bind_by_hand:
        sim.run("delete", "clusterrolebinding", f"{release}-prometheus")


def opted_in_web(sim, name, namespace):
    """Creates an opted-in Deployment of 4 replicas and waits for its pods on two nodes or more;
    returns its pods."""
    manifest = json.loads(deployment_manifest(name, 4, {"replica-guard.io/enabled": "true",
                                                       "replica-guard.io/max-surge": "100%"}))
    manifest["metadata"]["namespace"] = namespace
    sim.run("apply", "-f", "-", stdin=json.dumps(manifest))

    def pods():
        return [p for p in sim.get("pods", "-n", namespace, "-l", f"app={name}")["items"]
                if p["spec"].get("nodeName")]

    wait_for(f"{name}'s pods scheduled on two nodes or more", lambda: len({p["spec"]["nodeName"] for p in pods()}) >= 2,
             30)
    return pods()


def check_token(checks, label, sim, kubeconfig, expected_user, web_namespace, outside):
    """The token is the release's ServiceAccount, scoped as the release says, and no more."""
    def kubectl(*args):
        return subprocess.run([sim.kubectl, "--kubeconfig", kubeconfig, "auth", *args], capture_output=True,
                              text=True, timeout=60).stdout.strip()

    whoami = kubectl("whoami", "-o", "json")
    user = json.loads(whoami or "{}").get("status", {}).get("userInfo", {}).get("username")
    checks.check(f"{label}: the token is the release's ServiceAccount", user == expected_user,
                 f"{user!r}, not {expected_user!r}")
    checks.check(f"{label}: the ServiceAccount may not delete pods or read Secrets",
                 kubectl("can-i", "delete", "pods", "-n", web_namespace) == "no"
                 and kubectl("can-i", "list", "secrets", "-n", web_namespace) == "no", "it may")
    if outside:
        checks.check(f"{label}: the token may watch Deployments in {web_namespace}, not in {outside}",
                     kubectl("can-i", "watch", "deployments.apps", "-n", web_namespace) == "yes"
                     and kubectl("can-i", "watch", "deployments.apps", "-n", outside) == "no", "scoped otherwise")
    else:
        checks.check(f"{label}: the token may watch Deployments in every namespace",
                     kubectl("can-i", "watch", "deployments.apps", "--all-namespaces") == "yes", "it may not")


def guard_under_token(checks, label, sim, name, args, web, web_namespace):
    """The operator (started as `name` with `args`) passes its self-check, leads, and scales the
    guarded Deployment `web` up for a failed node and back; stops at the first step that fails."""
    def records():
        return log_records(sim.log(name))

    def probe_address():
        return next((r.get("address") for r in records()
                     if r.get("msg") == "serving" and r.get("endpoints") == "/healthz /readyz"), None)

    if not checks.eventually(f"{label}: the operator serves its probes", probe_address, 30):
        print(sim.log(name)[-3000:])
        return
    ready = checks.eventually(f"{label}: /readyz answers 200", lambda: readyz(probe_address())[0] == 200, 30)
    checked = [r for r in records() if r.get("msg") == "permissions checked"]
    checks.check(f"{label}: the permission self-check passed under the release's token",
                 len(checked) == 1 and int(checked[0].get("granted", 0)) > 0, str(readyz(probe_address())))
    if not ready:
        return
    lease = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if a.startswith("--leader-election-")}
    if "--leader-elect" in args:
        lease_name, lease_namespace = lease["--leader-election-id"], lease["--leader-election-namespace"]
        checks.eventually(f"{label}: it holds the Lease {lease_name} in {lease_namespace}",
                          lambda: ((sim.get("lease", lease_name, "-n", lease_namespace) or {}).get("spec", {})
                                   .get("holderIdentity") or "") != "", 30)

    def deployment():
        return sim.get("deployment", web, "-n", web_namespace) or {}

    pods = opted_in_web(sim, web, web_namespace)
    if not checks.eventually(f"{label}: it records {web}'s desired replicas",
                             lambda: deployment().get("metadata", {}).get("annotations", {}).get(
                                 "replica-guard.io/desired-replicas") == "4", 30):
        return
    victim = pods[0]["spec"]["nodeName"]
    stranded = sum(1 for p in pods if p["spec"]["nodeName"] == victim)
    sim.run("label", "node", victim, "sim.replica-guard.io/kubelet=stopped")
    checks.eventually(f"{label}: scales {web} up for {stranded} pod(s) stranded on {victim}",
                      lambda: deployment().get("spec", {}).get("replicas") == 4 + stranded, 60)
    tainting = "--taint-suspect-nodes" in args
    if tainting:
        checks.eventually(f"{label}: taints {victim} {SUSPECT_TAINT}:NoSchedule",
                          lambda: suspect_tainted(sim, victim), 60)
    marking = "--mark-suspect-pods-not-ready" in args
    stranded_pods = [p["metadata"]["name"] for p in pods if p["spec"]["nodeName"] == victim]

    def stranded_ready():
        return [ready_condition(sim.get("pod", pod, "-n", web_namespace)) for pod in stranded_pods]
    if marking:
        checks.eventually(f"{label}: marks {web}'s pods on {victim} NotReady",
                          lambda: set(stranded_ready()) == {"False"}, 60)
        def warned():
            return {e["involvedObject"]["name"] for e in sim.get("events", "-n", web_namespace)["items"]
                    if e.get("reason") == "NodeLeaseExpired" and e.get("type") == "Warning"}
        checks.eventually(f"{label}: ... with a Warning Event NodeLeaseExpired on each",
                          lambda: warned() >= set(stranded_pods), 30)
    sim.run("label", "node", victim, "sim.replica-guard.io/kubelet-")
    if marking:
        checks.eventually(f"{label}: the kubelet, back, reports them Ready again",
                          lambda: set(stranded_ready()) == {"True"}, 60)
    if tainting:
        checks.eventually(f"{label}: removes the taint once {victim} renews its Lease",
                          lambda: not suspect_tainted(sim, victim), 60)
    checks.eventually(f"{label}: scales {web} back after the node recovers",
                      lambda: deployment().get("spec", {}).get("replicas") == 4, 60)
    problems = [r for r in records() if r.get("level") in ("error", "critical")
                or "forbidden" in json.dumps(r).lower()]
    checks.check(f"{label}: no error and nothing forbidden in its log", not problems, str(problems[:5]))
    sim.run("delete", "deployment", web, "-n", web_namespace)


def check_action_flag_refused(checks, label, sim, name, args, kubeconfig, flag, missing):
    """`flag` added to a release installed without its action: the self-check names exactly the
    `missing` permissions (their descriptions) the chart did not grant, and nothing starts."""
    operator = sim.start_operator(name, *args, flag, kubeconfig=kubeconfig)
    try:
        def refused():
            return next((r["msg"] for r in log_records(sim.log(name))
                         if r.get("level") == "error" and "lacks" in r.get("msg", "")), None)
        checks.eventually(f"{label}: with {flag} added, the self-check fails", refused, 30)
        message = refused() or ""
        checks.check(f"{label}: ... naming exactly {' and '.join(missing)}",
                     f"lacks {len(missing)} permission(s)" in message
                     and all(f"- {m} (" in message for m in missing), message)
    finally:
        stop(operator)


def ready_condition(pod):
    return next((c.get("status") for c in (pod or {}).get("status", {}).get("conditions", [])
                 if c.get("type") == "Ready"), None)


def suspect_tainted(sim, node):
    return any(t.get("key") == SUSPECT_TAINT for t in (sim.get("node", node) or {}).get("spec", {}).get("taints", []))


def uninstall_running_hooks(sim, helm, release, namespace, kubeconfig):
    """helm uninstall, playing the Job controller kube-sim lacks for the chart's pre-delete hook:
    its Job's container runs here (the replica-guard binary with the Job's args, under the
    release's ServiceAccount token) and the Job is marked Complete or Failed from its exit code.
    Returns helm's output and the hook's exit codes."""
    uninstall = subprocess.Popen([helm.binary, "--kubeconfig", sim.kubeconfig, "uninstall", release,
                                  "--namespace", namespace, "--timeout", "90s"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=helm.env)
    codes = {}
    while uninstall.poll() is None:
        for job in sim.get("jobs", "-n", namespace)["items"]:
            name = job["metadata"]["name"]
            if name in codes or job.get("status", {}).get("conditions"):
                continue
            container = job["spec"]["template"]["spec"]["containers"][0]
            result = subprocess.run([os.path.join(sim.build_dir, "operator/replica-guard"), "--kubeconfig", kubeconfig,
                                     *container.get("args", [])], capture_output=True, text=True, timeout=60)
            codes[name] = result.returncode
            print(f"hook Job {name}: exit {result.returncode}\n{result.stdout}{result.stderr}", flush=True)
            condition = "Complete" if result.returncode == 0 else "Failed"
            status = {"conditions": [{"type": condition, "status": "True"}],
                      "succeeded" if condition == "Complete" else "failed": 1}
            sim.run("patch", "job", name, "-n", namespace, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": status}))
        try:
            uninstall.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
    out = uninstall.stdout.read()
    if uninstall.returncode != 0:
        raise RuntimeError(f"helm uninstall {release}: {out.strip()}")
    return out, codes


def check_release(checks, sim, helm, release, namespace, values, web_namespace, outside=None,
                  bind_reader_by_hand=True):
    """Installs the chart as `release` in `namespace` with `values`, runs the operator under the
    release's ServiceAccount with the release's command line against a guarded Deployment in
    `web_namespace`, and uninstalls the release. `outside`: a namespace the release must not
    reach (None: it watches every namespace)."""
    label = f"release {release}"
    out = helm("install", release, CHART, "--namespace", namespace, "--create-namespace", *FAST_POLICY, *values)
    checks.check(f"{label}: helm install deployed it", "STATUS: deployed" in out, out)
    kubeconfig = None
    try:
        deployments = sim.get("deployments", "-n", namespace, "-l", f"app.kubernetes.io/instance={release}")["items"]
        if not checks.check(f"{label}: one operator Deployment", len(deployments) == 1, str(len(deployments))):
            return
        account = deployments[0]["spec"]["template"]["spec"].get("serviceAccountName", "default")
        kubeconfig = sim.service_account_kubeconfig(account, namespace)
        check_token(checks, label, sim, kubeconfig, f"system:serviceaccount:{namespace}:{account}", web_namespace,
                    outside)

        name = f"operator-{release}"
        args = operator_command_line(deployments[0])
        print(f"{label}: replica-guard {' '.join(args)}", flush=True)
        operator = sim.start_operator(name, *args, kubeconfig=kubeconfig)
        try:
            guard_under_token(checks, label, sim, name, args, f"web-{release}", web_namespace)
            check_scrape(checks, label, sim, name, release, namespace, bind_reader_by_hand)
        finally:
            code = stop(operator)
        checks.check(f"{label}: SIGTERM: exit code 0", code == 0, f"exit {code}: {sim.log(name)[-1500:]}")
        if "actions.taintSuspectNodes=true" not in values:
            check_action_flag_refused(checks, label, sim, f"{name}-tainting", args, kubeconfig,
                                      "--taint-suspect-nodes", ["get nodes cluster-wide", "patch nodes cluster-wide"])
        if "actions.markSuspectPodsNotReady=true" not in values:
            scope = f'in namespace "{web_namespace}"' if outside else "cluster-wide"
            check_action_flag_refused(checks, label, sim, f"{name}-marking", args, kubeconfig,
                                      "--mark-suspect-pods-not-ready", [f"patch pods/status {scope}"])
    finally:
        if "actions.taintSuspectNodes=true" in values and kubeconfig:
            # A taint the operator left (stopped while a node was suspect): the hook removes it.
            node = sim.get("nodes")["items"][0]["metadata"]["name"]
            sim.run("taint", "node", node, f"{SUSPECT_TAINT}=:NoSchedule")
            out, codes = uninstall_running_hooks(sim, helm, release, namespace, kubeconfig)
            checks.check(f"{label}: the pre-delete hook ran --remove-suspect-taints and succeeded",
                         list(codes.values()) == [0], str(codes))
            checks.check(f"{label}: no node carries {SUSPECT_TAINT} after helm uninstall",
                         not suspect_tainted(sim, node), str(sim.get("node", node).get("spec")))
        else:
            out = helm("uninstall", release, "--namespace", namespace)
        left = sim.run("get", "clusterroles,clusterrolebindings,roles,rolebindings", "-A", "-o", "name",
                       "-l", f"app.kubernetes.io/instance={release}")
        checks.check(f"{label}: helm uninstall removes its RBAC", "uninstalled" in out and not left.strip(), left)


def main():
    kubectl, helm_binary = tool("kubectl"), tool("helm")
    if not kubectl or not helm_binary:
        print("SKIP: kubectl or helm not found (scripts/setup.sh --tools installs them into .tools/bin)")
        return SKIP
    checks = Checks("helm_release.py")
    with KubeSim(sys.argv[1], "--nodes", "3", "--time-scale", "0.05", kubectl=kubectl) as sim:
        helm = Helm(helm_binary, sim)
        # Prometheus' ServiceAccount, as kube-prometheus names it.
        sim.run("create", "namespace", "monitoring")
        sim.run("create", "serviceaccount", "prometheus", "-n", "monitoring")
        check_release(checks, sim, helm, "rg", "replica-guard-system", [], "default")

        sim.run("create", "namespace", "shop")
        sim.run("create", "namespace", "elsewhere")
        check_release(checks, sim, helm, "scoped", "guard",
                      ["--set", "watchNamespaces={shop}",
                       "--set", "metrics.readerServiceAccounts[0].name=prometheus",
                       "--set", "metrics.readerServiceAccounts[0].namespace=monitoring"], "shop",
                      outside="elsewhere", bind_reader_by_hand=False)

        # The opt-in actions on suspect nodes: their extra rules, self-checked; the taint, its
        # removal, and the uninstall hook; the pods marked NotReady and put back by the kubelet.
        check_release(checks, sim, helm, "tainting", "guard-taints",
                      ["--set", "actions.taintSuspectNodes=true", "--set", "actions.markSuspectPodsNotReady=true",
                       "--set", "policy.nodeLeaseGrace=1200ms"],
                      "default")
        if checks.failed:
            print(f"Logs: {sim.work}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
