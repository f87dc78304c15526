"""A loopback stand-in for an API server that answers only what `kubectl apply --dry-run=client`
asks before it prints: legacy discovery of the kinds manifests/ uses, and 404 for every object
(nothing exists yet, so each would be created). Enough to prove which objects `kubectl apply -f`
and `-k` would send; applying for real is kube-sim's job (sim/)."""
import http.server
import json
import os
import tempfile
import threading

# group/version -> [(resource, kind, namespaced)]
RESOURCES = {
    "v1": [("namespaces", "Namespace", False), ("serviceaccounts", "ServiceAccount", True),
           ("services", "Service", True), ("configmaps", "ConfigMap", True),
           ("secrets", "Secret", True)],
    "apps/v1": [("deployments", "Deployment", True)],
    "rbac.authorization.k8s.io/v1": [("clusterroles", "ClusterRole", False),
                                     ("clusterrolebindings", "ClusterRoleBinding", False),
                                     ("roles", "Role", True), ("rolebindings", "RoleBinding", True)],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
    "networking.k8s.io/v1": [("networkpolicies", "NetworkPolicy", True)],
    "monitoring.coreos.com/v1": [("servicemonitors", "ServiceMonitor", True),
                                 ("prometheusrules", "PrometheusRule", True)],
}


def _resource_list(group_version):
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
            "resources": [{"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
                           "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}
                          for name, kind, namespaced in RESOURCES[group_version]]}


def _group_list():
    groups = []
    for group_version in RESOURCES:
        if "/" in group_version:
            name, version = group_version.split("/")
            entry = {"groupVersion": group_version, "version": version}
            groups.append({"name": name, "versions": [entry], "preferredVersion": entry})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/api":
            self._reply(200, {"kind": "APIVersions", "versions": ["v1"]})
        elif path == "/apis":
            self._reply(200, _group_list())
        elif path == "/api/v1":
            self._reply(200, _resource_list("v1"))
        elif path.startswith("/apis/") and path[len("/apis/"):] in RESOURCES:
            self._reply(200, _resource_list(path[len("/apis/"):]))
        else:
            self._reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                              "reason": "NotFound", "code": 404, "message": f"{path} not found"})

    def _reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class DiscoveryStub:
    """Serves on 127.0.0.1 (a free port) while in a `with` block; `kubeconfig` points at it."""

    def __enter__(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.dir = tempfile.TemporaryDirectory()
        self.kubeconfig = os.path.join(self.dir.name, "kubeconfig")
        with open(self.kubeconfig, "w", encoding="utf-8") as f:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "stub",
                       "clusters": [{"name": "stub", "cluster": {
                           "server": f"http://127.0.0.1:{self.server.server_address[1]}"}}],
                       "users": [{"name": "stub", "user": {}}],
                       "contexts": [{"name": "stub", "context": {"cluster": "stub", "user": "stub"}}]},
                      f)
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        self.dir.cleanup()
