"""Shared helpers of the test/ship checks: finding the tools, rendering the chart and the
manifests, reading Kubernetes YAML streams, and reporting like a meson test (exit 77 = skipped)."""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

try:
    import yaml
except ImportError:  # python3-yaml is part of the Debian 12 machine; without it, skip cleanly.
    print("SKIP: python3-yaml is not installed (apt-get install python3-yaml)")
    sys.exit(SKIP)

SOURCE_ROOT = os.environ.get(
    "RG_SOURCE_ROOT", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
CHART = os.path.join(SOURCE_ROOT, "charts", "replica-guard")
MANIFESTS = os.path.join(SOURCE_ROOT, "manifests")
VALUES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "values")
RELEASE = "replica-guard"
RELEASE_NAMESPACE = "replica-guard-system"


def tool(name):
    """The path of a tool: RG_TOOLS_BIN (the repository's .tools/bin) first, then PATH; skips
    the test when it is nowhere."""
    tools_bin = os.environ.get("RG_TOOLS_BIN", os.path.join(SOURCE_ROOT, ".tools", "bin"))
    candidate = os.path.join(tools_bin, name)
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(name)
    if found:
        return found
    print(f"SKIP: {name} not found (scripts/setup.sh --tools installs helm and kubectl)")
    sys.exit(SKIP)


def run(args, check=True):
    """Runs a command; returns its stdout. A failure shows the command and its stderr."""
    proc = subprocess.run(args, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"command failed ({proc.returncode}): {' '.join(args)}\n{proc.stderr}")
    return proc


def objects(text):
    """The objects of a YAML stream, without the empty documents."""
    return [doc for doc in yaml.safe_load_all(text) if doc]


def helm_template(values_file=None, sets=(), api_versions=(), namespace=RELEASE_NAMESPACE):
    args = [tool("helm"), "template", RELEASE, CHART, "--namespace", namespace]
    if values_file:
        args += ["--values", os.path.join(VALUES, values_file)]
    for item in sets:
        args += ["--set", item]
    for api in api_versions:
        args += ["--api-versions", api]
    return objects(run(args).stdout)


def kustomize(path):
    return objects(run([tool("kubectl"), "kustomize", path]).stdout)


def kustomize_with(*components):
    """manifests/ with `components:` and the named components' lines in manifests/Kustomization
    uncommented, as its comment tells a user to do (in a copy, so the tree is left alone)."""
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "manifests")
        shutil.copytree(MANIFESTS, copy)
        path = os.path.join(copy, "Kustomization")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        enabled = text.replace("# components:\n", "components:\n")
        for component in components:
            enabled = enabled.replace(f"#   - {component}\n", f"  - {component}\n")
            if f"  - {component}\n" not in enabled:
                raise AssertionError(f"manifests/Kustomization lost its commented `{component}` component")
        with open(path, "w", encoding="utf-8") as f:
            f.write(enabled)
        return kustomize(copy)


def kustomize_namespaced():
    return kustomize_with("namespaced")


def manifest_files():
    """What `kubectl apply -f manifests/` reads: every .yaml/.yml/.json file at the top level."""
    names = sorted(n for n in os.listdir(MANIFESTS) if n.endswith((".yaml", ".yml", ".json")))
    docs = []
    for name in names:
        with open(os.path.join(MANIFESTS, name), encoding="utf-8") as f:
            docs += objects(f.read())
    return names, docs


def find(objs, kind, name=None, namespace=None):
    return [o for o in objs if o["kind"] == kind
            and (name is None or o["metadata"]["name"] == name)
            and (namespace is None or o["metadata"].get("namespace") == namespace)]


def one(objs, kind, name=None):
    found = find(objs, kind, name)
    if len(found) != 1:
        raise AssertionError(f"expected exactly one {kind} {name or ''}, found {len(found)}")
    return found[0]


def container_args(objs):
    deployment = one(objs, "Deployment")
    return deployment["spec"]["template"]["spec"]["containers"][0].get("args", [])


class Checks:
    """Collects failures so that one run reports all of them; `done()` exits like a test."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.passed = 0

    def check(self, condition, message):
        if condition:
            self.passed += 1
        else:
            self.failures.append(message)
            print(f"FAIL: {message}")

    def equal(self, actual, expected, message):
        self.check(actual == expected, f"{message}: got {actual!r}, expected {expected!r}")

    def done(self):
        print(f"{self.name}: {self.passed} checks passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures else 0)


def pod_security_restricted(checks, label, deployment):
    """The Pod Security Standard "restricted" rules that apply to replica-guard's pod, plus a
    read-only root file system."""
    pod = deployment["spec"]["template"]["spec"]
    pod_ctx = pod.get("securityContext", {})
    for container in pod.get("containers", []) + pod.get("initContainers", []):
        ctx = container.get("securityContext", {})
        where = f"{label}: container {container['name']}"
        checks.check(ctx.get("runAsNonRoot", pod_ctx.get("runAsNonRoot")) is True,
                     f"{where}: runAsNonRoot must be true")
        checks.check(ctx.get("allowPrivilegeEscalation") is False,
                     f"{where}: allowPrivilegeEscalation must be false")
        checks.check(ctx.get("readOnlyRootFilesystem") is True,
                     f"{where}: readOnlyRootFilesystem must be true")
        checks.equal(ctx.get("capabilities", {}).get("drop"), ["ALL"], f"{where}: dropped capabilities")
        checks.check(not ctx.get("capabilities", {}).get("add"), f"{where}: adds capabilities")
        seccomp = ctx.get("seccompProfile", pod_ctx.get("seccompProfile", {})).get("type")
        checks.equal(seccomp, "RuntimeDefault", f"{where}: seccomp profile")
        checks.check(ctx.get("privileged") is not True, f"{where}: privileged")
        user = ctx.get("runAsUser", pod_ctx.get("runAsUser"))
        checks.check(user is None or user != 0, f"{where}: runAsUser 0")
    checks.check(not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC"),
                 f"{label}: host namespaces")
    checks.check(all("hostPath" not in v for v in pod.get("volumes", [])), f"{label}: hostPath volume")


def selects(selector, labels):
    """Whether a matchLabels map (or a Service's selector) selects these labels."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_wiring(checks, label, objs):
    """The Deployment, its Service and PodDisruptionBudget fit together: selectors select the
    pods, named ports exist, the probes hit the health port."""
    deployment = one(objs, "Deployment")
    template = deployment["spec"]["template"]
    pod_labels = template["metadata"]["labels"]
    checks.check(selects(deployment["spec"]["selector"]["matchLabels"], pod_labels),
                 f"{label}: the Deployment's selector does not select its pods")
    container = template["spec"]["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = container.get(probe, {}).get("httpGet", {})
        checks.equal((get.get("path"), get.get("port")), (path, "health"), f"{label}: {probe}")
    args = container.get("args", [])
    checks.check(f"--health-probe-bind-address=:{ports.get('health')}" in args,
                 f"{label}: --health-probe-bind-address does not match the health port {ports}")
    for service in find(objs, "Service"):
        checks.check(selects(service["spec"]["selector"], pod_labels),
                     f"{label}: Service {service['metadata']['name']} does not select the pods")
        for port in service["spec"]["ports"]:
            checks.check(port["targetPort"] in ports,
                         f"{label}: Service port {port['name']} targets no container port")
        checks.check(f"--metrics-bind-address=:{ports.get('metrics')}" in args,
                     f"{label}: --metrics-bind-address does not match the metrics port {ports}")
    for pdb in find(objs, "PodDisruptionBudget"):
        checks.check(selects(pdb["spec"]["selector"]["matchLabels"], pod_labels),
                     f"{label}: the PodDisruptionBudget does not select the pods")
