"""A kube-sim process and kubectl against it, for the demo and the process-level tests: starts
the kube-sim binary on an ephemeral port with its admin kubeconfig, runs kubectl with it, starts
replica-guard processes against it, and stops everything on exit. Its work directory
(kubeconfig, logs) is removed on exit unless the run failed -- an exception, or a failed check of
any Checks -- in which case it is kept and its path printed."""
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


# Failed checks of every Checks in this process: a KubeSim that saw one keeps its files.
_failed_checks = 0


class KubectlMissing(RuntimeError):
    """No kubectl to drive kube-sim with: tests skip (exit 77), the demo stops."""


def skip_without_kubectl(main):
    """Wraps a test's main: when there is no kubectl to drive kube-sim with, it says why and
    returns 77, which meson reports as skipped."""
    @functools.wraps(main)
    def run(*args, **kwargs):
        try:
            return main(*args, **kwargs)
        except KubectlMissing as e:
            print(f"skipped: {e}")
            return 77
    return run


def deployment_manifest(name, replicas, annotations):
    """A Deployment `name` in namespace default (pods labelled app=NAME) as kubectl-applyable
    JSON; `annotations` e.g. {"replica-guard.io/enabled": "true"}."""
    return json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": name, "image": f"registry.example/{name}:1.0"}]}}},
    })


def widget_crd(schema, status_subresource=False):
    """The examples' CustomResourceDefinition, widgets.example.com (v1, Namespaced, kind Widget),
    as kubectl-applyable JSON; `schema` is its openAPIV3Schema."""
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if status_subresource:
        version["subresources"] = {"status": {}}
    return json.dumps({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                           "listKind": "WidgetList"},
                 "versions": [version]},
    })


def wait_for(what, check, timeout, interval=0.1):
    """Polls check() until it is true; raises naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(interval)
    raise RuntimeError(f"timed out after {timeout:g}s waiting for {what}")


def condition(obj, kind):
    """The status of condition `kind` ("True", "False", "Unknown", or "" when absent)."""
    for c in obj.get("status", {}).get("conditions", []):
        if c.get("type") == kind:
            return c.get("status", "")
    return ""


class KubeSim:
    """kube-sim started from BUILD_DIR/sim/kube-sim with `args`; a context manager."""

    def __init__(self, build_dir, *args, kubectl=None):
        self.build_dir = build_dir
        self.kubectl = kubectl or shutil.which("kubectl")
        if not self.kubectl:
            raise KubectlMissing("kubectl not found (scripts/setup.sh --tools installs it into .tools/bin)")
        self.failures_before = _failed_checks
        self.closed = False
        self.work = tempfile.mkdtemp(prefix="kube-sim-")
        self.kubeconfig = os.path.join(self.work, "kubeconfig")
        self.processes = []
        self.process = subprocess.Popen(
            [os.path.join(build_dir, "sim/kube-sim"), "--port", "0", "--write-kubeconfig", self.kubeconfig, *args],
            stdout=subprocess.PIPE, stderr=open(os.path.join(self.work, "kube-sim.log"), "w"), text=True)
        self.processes.append(self.process)
        self.banner = self.process.stdout.readline().strip()
        if not self.banner:
            self.close(failed=True)
            raise RuntimeError(f"kube-sim did not start; see {self.work}/kube-sim.log")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.close(failed=exc_type is not None)

    def close(self, failed=False):
        """Stops every process; removes the work directory unless `failed`, an exception is being
        handled or a check failed since this kube-sim started (then prints where it is)."""
        if self.closed:
            return
        self.closed = True
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if failed or sys.exc_info()[0] is not None or _failed_checks > self.failures_before:
            print(f"kube-sim: the run failed; its kubeconfig and logs are kept in {self.work}",
                  file=sys.stderr, flush=True)
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def start_operator(self, name, *args, kubeconfig=None):
        """replica-guard against this kube-sim (as the admin unless `kubeconfig` says otherwise),
        without HTTP servers unless `args` bind them, logging to WORK/NAME.log; returns the Popen."""
        defaults = [flag for flag in ("--metrics-bind-address", "--health-probe-bind-address")
                    if not any(a == flag or a.startswith(flag + "=") for a in args)]
        command = [os.path.join(self.build_dir, "operator/replica-guard"), "--kubeconfig",
                   kubeconfig or self.kubeconfig, *[part for flag in defaults for part in (flag, "0")], *args]
        log = open(os.path.join(self.work, f"{name}.log"), "w")
        process = subprocess.Popen(command, stdout=log, stderr=log)
        self.processes.append(process)
        return process

    def log(self, name):
        with open(os.path.join(self.work, f"{name}.log")) as f:
            return f.read()

    def run(self, *args, stdin=None, check=True):
        result = subprocess.run([self.kubectl, "--kubeconfig", self.kubeconfig, *args], input=stdin,
                                capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def get(self, *args):
        """kubectl get ARGS -o json, parsed; None when the object does not exist."""
        result = subprocess.run([self.kubectl, "--kubeconfig", self.kubeconfig, "get", *args, "-o", "json"],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            if "NotFound" in result.stderr or "not found" in result.stderr:
                return None
            raise RuntimeError(f"kubectl get {' '.join(args)}: {result.stderr.strip()}")
        return json.loads(result.stdout)

    def items(self, resource):
        return self.get(resource, "-A")["items"]

    def service_account_kubeconfig(self, service_account, namespace):
        """A copy of the admin kubeconfig whose user is a fresh token of the ServiceAccount
        (minted with `kubectl create token`)."""
        token = self.run("create", "token", service_account, "-n", namespace).strip()
        path = os.path.join(self.work, f"{namespace}-{service_account}.kubeconfig")
        shutil.copy(self.kubeconfig, path)
        config = [self.kubectl, "--kubeconfig", path, "config"]
        subprocess.run([*config, "set-credentials", service_account, f"--token={token}"], check=True,
                       capture_output=True)
        context = subprocess.run([*config, "current-context"], check=True, capture_output=True,
                                 text=True).stdout.strip()
        subprocess.run([*config, "set-context", context, f"--user={service_account}"], check=True,
                       capture_output=True)
        return path


def stop(process, sig=signal.SIGTERM, timeout=20):
    """Sends `sig` and returns the exit code (raises if the process does not end in time)."""
    process.send_signal(sig)
    return process.wait(timeout=timeout)


class Checks:
    """Named checks of a process-level test; result() prints the tally and gives the exit code."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, what, ok, detail=""):
        global _failed_checks
        print(f"{'ok' if ok else 'FAIL'}: {what}{'' if ok else ': ' + detail}", flush=True)
        _failed_checks += not ok
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)
        return ok

    def eventually(self, what, condition, timeout):
        """Checks that `condition` comes true within `timeout` seconds."""
        try:
            wait_for(what, condition, timeout)
            return self.check(what, True)
        except RuntimeError as e:
            return self.check(what, False, str(e))

    def result(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
