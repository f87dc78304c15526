#!/usr/bin/python3
"""examples/widget_controller against the kube-sim binary: with the Widget CRD (status
subresource) applied, a Widget gets its ConfigMap (data from the spec, controlled by the Widget),
its status (observedGeneration, Ready) and an Event, while the controller holds its Lease; the
ConfigMap follows a spec change, is put back after a hand edit and recreated after a deletion;
SIGTERM exits 0 and releases the Lease. Skips (77) without kubectl.

Usage: widget_controller_test.py BUILD_DIR"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, condition, skip_without_kubectl, stop, widget_crd  # noqa: E402

TIMEOUT = 60  # seconds, generous: every wait ends as soon as its condition holds

CRD = widget_crd({"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"color": {"type": "string"}, "size": {"type": "integer"}}},
    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}, status_subresource=True)


def widget(name, color, size):
    return json.dumps({"apiVersion": "example.com/v1", "kind": "Widget",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"color": color, "size": size}})


@skip_without_kubectl
def main(build_dir):
    checks = Checks("widget-controller")
    with KubeSim(build_dir) as sim:
        sim.run("apply", "-f", "-", stdin=CRD)
        log = open(os.path.join(sim.work, "widget_controller.log"), "w")
        controller = subprocess.Popen(
            [os.path.join(build_dir, "examples/widget_controller"), "--kubeconfig", sim.kubeconfig,
             "--namespace", "default"], stdout=log, stderr=subprocess.STDOUT)
        sim.processes.append(controller)
        sim.run("apply", "-f", "-", stdin=widget("w1", "blue", 3))
        w1 = sim.get("widgets.example.com", "w1")

        def config_map():
            return sim.get("configmap", "w1-widget")

        def data_is(expected):
            return lambda: (config_map() or {}).get("data") == expected

        def status_for_generation():
            w = sim.get("widgets.example.com", "w1")
            status = w.get("status", {})
            return (status.get("observedGeneration") == w["metadata"]["generation"]
                    and condition(w, "Ready") == "True" and status.get("configMap") == "w1-widget")

        def event(reason):
            events = sim.get("events", "-n", "default")["items"]
            return any(e["involvedObject"].get("kind") == "Widget" and e["involvedObject"].get("name") == "w1"
                       and e["reason"] == reason for e in events)

        def lease_holder():
            lease = sim.get("lease", "widget-controller", "-n", "default")
            return (lease or {}).get("spec", {}).get("holderIdentity", "")

        checks.eventually("the controller holds its Lease", lambda: lease_holder() != "", TIMEOUT)
        checks.eventually("the Widget's ConfigMap appears with the data of its spec",
                          data_is({"color": "blue", "size": "3"}), TIMEOUT)
        refs = (config_map() or {}).get("metadata", {}).get("ownerReferences", [])
        checks.check("the ConfigMap is controlled by the Widget",
                     refs == [{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w1",
                               "uid": w1["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}],
                     json.dumps(refs))
        checks.eventually("the status has the generation, the ConfigMap and Ready=True", status_for_generation, TIMEOUT)
        checks.eventually("a Created Event is recorded on the Widget", lambda: event("Created"), TIMEOUT)

        sim.run("patch", "widgets.example.com", "w1", "--type=merge", "-p", '{"spec":{"size":5}}')
        checks.eventually("the ConfigMap follows a spec change", data_is({"color": "blue", "size": "5"}), TIMEOUT)
        checks.eventually("the status follows the new generation", status_for_generation, TIMEOUT)
        checks.eventually("an Updated Event is recorded", lambda: event("Updated"), TIMEOUT)

        sim.run("patch", "configmap", "w1-widget", "--type=merge", "-p", '{"data":{"size":"99"}}')
        checks.eventually("a hand edit of the ConfigMap is put back", data_is({"color": "blue", "size": "5"}), TIMEOUT)

        old_uid = config_map()["metadata"]["uid"]
        sim.run("delete", "configmap", "w1-widget")
        checks.eventually("a deleted ConfigMap is recreated",
                          lambda: (config_map() or {"metadata": {"uid": old_uid}})["metadata"]["uid"] != old_uid
                          and data_is({"color": "blue", "size": "5"})(), TIMEOUT)

        checks.check("it stops cleanly on SIGTERM", stop(controller) == 0, sim.log("widget_controller"))
        checks.check("it released the Lease on the way out", lease_holder() == "", json.dumps(
            sim.get("lease", "widget-controller", "-n", "default")))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
