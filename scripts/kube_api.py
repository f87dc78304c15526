"""A minimal Kubernetes API client for the harnesses that watch kube-sim closely (the outcome
harness, the demo): JSON over HTTPS with the credentials of a kubeconfig (client certificate or
bearer token), one connection per thread, and watch streams read line by line as they arrive.
kubectl stays the tool for everything a person would type; this is for what a person cannot do
fast enough (timestamping every Pod change)."""
import base64
import http.client
import json
import os
import ssl
import subprocess
import threading
import urllib.parse


class ApiError(RuntimeError):
    def __init__(self, method, path, status, body):
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]}")
        self.status = status


class KubeApi:
    """The API server of `kubeconfig`'s current context; `kubectl` resolves the kubeconfig (so
    every form kubectl accepts works) and `work` holds the client certificate files."""

    def __init__(self, kubectl, kubeconfig, work):
        view = json.loads(subprocess.run(
            [kubectl, "--kubeconfig", kubeconfig, "config", "view", "--raw", "--minify", "-o", "json"],
            check=True, capture_output=True, text=True, timeout=60).stdout)
        cluster = view["clusters"][0]["cluster"]
        user = view["users"][0]["user"]
        url = urllib.parse.urlsplit(cluster["server"])
        self.host, self.port, self.tls = url.hostname, url.port, url.scheme == "https"
        self.headers = {"Accept": "application/json", "User-Agent": "replica-guard-harness"}
        if "token" in user:
            self.headers["Authorization"] = f"Bearer {user['token']}"
        self.context = None
        if self.tls:
            ca = cluster.get("certificate-authority-data")
            self.context = ssl.create_default_context(
                cadata=base64.b64decode(ca).decode() if ca else None)
            if "client-certificate-data" in user:
                cert, key = os.path.join(work, "harness.crt"), os.path.join(work, "harness.key")
                for path, field in ((cert, "client-certificate-data"), (key, "client-key-data")):
                    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                        f.write(base64.b64decode(user[field]))
                self.context.load_cert_chain(cert, key)
        self.local = threading.local()

    def _connect(self, timeout=None):
        if self.tls:
            return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=timeout)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, content_type="application/json"):
        """The parsed JSON answer; raises ApiError for a status of 300 or more."""
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = self._connect(timeout=60)
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            headers["Content-Type"] = content_type
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
        except (http.client.HTTPException, OSError):
            connection.close()
            self.local.connection = None
            raise
        if response.status >= 300:
            raise ApiError(method, path, response.status, text)
        return json.loads(text) if text else None

    def get(self, path):
        return self.request("GET", path)

    def merge_patch(self, path, patch):
        return self.request("PATCH", path, patch, "application/merge-patch+json")

    def watch(self, path, resource_version, stop):
        """Yields the events (parsed) of a watch of collection `path` from `resource_version`
        until `stop` (a threading.Event) is set. When the server ends the stream, drops it or
        answers 429 or 5xx (a fault, an outage), it watches again from the last resourceVersion
        seen, a fifth of a second later. Raises ApiError on 410 Gone (relist and start over) and
        on any other error."""
        while not stop.is_set():
            query = urllib.parse.urlencode({"watch": "true", "resourceVersion": resource_version,
                                            "allowWatchBookmarks": "true", "timeoutSeconds": "30"})
            connection = self._connect(timeout=40)
            try:
                connection.request("GET", f"{path}?{query}", headers=self.headers)
                response = connection.getresponse()
                if response.status >= 300:
                    raise ApiError("WATCH", path, response.status, response.read().decode())
                for line in response:
                    if stop.is_set():
                        return
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    if event["type"] == "ERROR":
                        status = event["object"]
                        raise ApiError("WATCH", path, status.get("code", 500), json.dumps(status))
                    resource_version = event["object"]["metadata"].get("resourceVersion", resource_version)
                    if event["type"] != "BOOKMARK":
                        yield event
            except ApiError as e:
                if e.status != 429 and e.status < 500:
                    raise
                stop.wait(0.2)
            except (http.client.HTTPException, OSError):
                stop.wait(0.2)
            finally:
                connection.close()
