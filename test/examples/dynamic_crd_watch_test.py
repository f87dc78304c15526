#!/usr/bin/python3
"""examples/dynamic_crd_watch against the kube-sim binary: started before its kind exists, it
waits; once the CustomResourceDefinition is applied (kubectl) it informs the new kind and prints
an object's creation, change and deletion. Skips (77) without kubectl.

Usage: dynamic_crd_watch_test.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, skip_without_kubectl, stop, widget_crd  # noqa: E402

TIMEOUT = 60  # seconds, generous: every wait ends as soon as its condition holds

CRD = widget_crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True})


def widget(name, size):
    return {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"size": size}}


class Lines:
    """The example's stdout lines, read on a thread."""

    def __init__(self, stream):
        self.lines, self.lock = [], threading.Lock()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def has(self, prefix):
        with self.lock:
            return any(line.startswith(prefix) for line in self.lines)

    def text(self):
        with self.lock:
            return "\n".join(self.lines)


@skip_without_kubectl
def main(build_dir):
    checks = Checks("dynamic-crd-watch")
    with KubeSim(build_dir) as sim:
        example = subprocess.Popen(
            [os.path.join(build_dir, "examples/dynamic_crd_watch"), "--kubeconfig", sim.kubeconfig,
             "example.com", "Widget", "default"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sim.processes.append(example)
        out = Lines(example.stdout)
        checks.eventually("it waits while the kind is not served",
                          lambda: out.has("waiting for kind Widget"), TIMEOUT)
        sim.run("apply", "-f", "-", stdin=CRD)
        checks.eventually("it informs the kind once its CRD is applied",
                          lambda: out.has("watching widgets.example.com v1"), TIMEOUT)
        sim.run("apply", "-f", "-", stdin=json.dumps(widget("w1", 1)))
        checks.eventually("a created object is printed", lambda: out.has('ADDED default/w1 {"size":1}'), TIMEOUT)
        sim.run("patch", "widgets.example.com", "w1", "--type=merge", "-p", '{"spec":{"size":2}}')
        checks.eventually("a change is printed", lambda: out.has('MODIFIED default/w1 {"size":2}'), TIMEOUT)
        sim.run("delete", "widgets.example.com", "w1")
        checks.eventually("a deletion is printed", lambda: out.has("DELETED default/w1"), TIMEOUT)
        checks.check("it stops cleanly on SIGTERM", stop(example) == 0, out.text())
    return checks.result()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
