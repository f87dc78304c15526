#!/usr/bin/python3
"""The official Kubernetes Python client (Debian's python3-kubernetes) against the kube-sim
binary: it lists and reads nodes, pods, deployments, replicasets, leases and namespaces
without errors -- its models reject an object that lacks a field the Go type always writes
(`kubeProxyVersion`) -- and its watch (`watch=True` in the query) is a watch, not a LIST; its
dynamic client serves a custom resource of a CustomResourceDefinition made at run time.
Skips (77) when the module is missing.

Usage: python_client_test.py KUBE_SIM_BINARY"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    from kubernetes import client, config, dynamic, watch
except ImportError:
    print("skipped: the kubernetes Python module is missing (apt-get install python3-kubernetes)")
    sys.exit(77)

DEADLINE = 60  # seconds, generous: every wait ends as soon as its condition holds


def wait_for(what, check):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def start(binary, work):
    kubeconfig = os.path.join(work, "kubeconfig")
    log = open(os.path.join(work, "kube-sim.log"), "w")
    process = subprocess.Popen([binary, "--port", "0", "--nodes", "2", "--time-scale", "0.05",
                                "--write-kubeconfig", kubeconfig], stdout=log, stderr=log)
    wait_for("kube-sim to write its kubeconfig", lambda: os.path.exists(kubeconfig)
             and os.path.getsize(kubeconfig) > 0)
    return process, kubeconfig


def deployment(name):
    labels = {"app": name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=2, selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web",
                                                                     image="nginx:1.27")]))))


def check_dynamic_client():
    """The dynamic client with a CustomResourceDefinition made at run time: discovery finds the
    kind, objects are created, listed, patched, scaled and watched through it."""
    api = dynamic.DynamicClient(client.ApiClient())
    definitions = api.resources.get(api_version="apiextensions.k8s.io/v1",
                                    kind="CustomResourceDefinition")
    definitions.create(body={
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {
                                   "type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                               "subresources": {"status": {}, "scale": {
                                   "specReplicasPath": ".spec.replicas",
                                   "statusReplicasPath": ".status.replicas"}}}]}})
    wait_for("the definition Established", lambda: any(
        c.type == "Established" and c.status == "True"
        for c in (definitions.get(name="widgets.example.com").status.conditions or [])))
    widgets = api.resources.get(api_version="example.com/v1", kind="Widget")
    widgets.create(namespace="default", body={
        "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"replicas": 1}})
    listed = widgets.get(namespace="default")
    assert [w.metadata.name for w in listed.items] == ["w"], listed
    widgets.patch(namespace="default", name="w", body={"spec": {"color": "red"}},
                  content_type="application/merge-patch+json")
    scale = api.resources.get(api_version="example.com/v1", kind="Widget").subresources["scale"]
    scale.patch(namespace="default", name="w", body={"spec": {"replicas": 3}},
                content_type="application/merge-patch+json")
    read = widgets.get(namespace="default", name="w")
    assert (read.spec.replicas, read.spec.color) == (3, "red"), read
    for event in widgets.watch(namespace="default", timeout=DEADLINE):
        assert event["object"].metadata.name == "w", event
        break
    print("ok: the dynamic client creates, lists, patches, scales and watches a custom resource")


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="python-client-test-")
    process, kubeconfig = start(binary, work)
    failed = True
    try:
        config.load_kube_config(config_file=kubeconfig)
        core, apps = client.CoreV1Api(), client.AppsV1Api()
        coordination = client.CoordinationV1Api()

        # A watch without resourceVersion starts with the pods there are (ADDED), then their
        # changes: either way the Deployment's two pods show up.
        pods_seen = []
        apps.create_namespaced_deployment("default", deployment("web"))
        stream = watch.Watch()
        for event in stream.stream(core.list_namespaced_pod, "default", label_selector="app=web",
                                   timeout_seconds=DEADLINE):
            assert event["type"] in ("ADDED", "MODIFIED"), event["type"]
            assert isinstance(event["object"], client.V1Pod), type(event["object"])
            pods_seen.append(event["object"].metadata.name)
            if len(set(pods_seen)) == 2:
                stream.stop()
        # (A server that answers watch=True with a LIST ends the stream with no events.)
        assert len(set(pods_seen)) == 2, f"the watch saw {pods_seen}"
        print(f"ok: watch=True streamed the pods {sorted(set(pods_seen))}")

        def pods_running():
            pods = core.list_namespaced_pod("default", label_selector="app=web").items
            return len(pods) == 2 and all(p.status.phase == "Running" for p in pods) and pods
        pods = wait_for("two running pods", pods_running)

        nodes = core.list_node().items
        assert len(nodes) == 2, nodes
        node = core.read_node(nodes[0].metadata.name)
        assert node.status.node_info.kube_proxy_version == "", node.status.node_info
        print(f"ok: nodes list and read; nodeInfo.kubeProxyVersion {node.status.node_info.kube_proxy_version!r}")

        pod = core.read_namespaced_pod(pods[0].metadata.name, "default")
        status = pod.status.container_statuses[0]
        assert status.name == "web" and status.ready in (True, False), status
        core.list_pod_for_all_namespaces()
        print(f"ok: pods list and read ({pod.metadata.name}: restartCount {status.restart_count})")

        apps.read_namespaced_deployment("web", "default")
        assert [d.metadata.name for d in apps.list_namespaced_deployment("default").items] == ["web"]
        replica_sets = apps.list_namespaced_replica_set("default").items
        assert len(replica_sets) == 1, replica_sets
        apps.read_namespaced_replica_set(replica_sets[0].metadata.name, "default")
        apps.list_deployment_for_all_namespaces()
        apps.list_replica_set_for_all_namespaces()
        print("ok: deployments and replicasets list and read")

        # The components' Events, as core/v1 (the scheduler's too; the Python client's events.k8s.io
        # model wants an eventTime no core/v1 Event has: kubernetes-client/python#1616, as against
        # any cluster).
        wanted = {"ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Started"}
        wait_for("the components' Events",
                 lambda: wanted <= {e.reason for e in core.list_namespaced_event("default").items})
        core.list_event_for_all_namespaces()
        print("ok: events list")

        leases = coordination.list_namespaced_lease("kube-node-lease").items
        assert len(leases) == 2, leases
        coordination.read_namespaced_lease(leases[0].metadata.name, "kube-node-lease")
        coordination.list_lease_for_all_namespaces()
        print("ok: leases list and read")

        names = [n.metadata.name for n in core.list_namespace().items]
        assert "default" in names and "kube-system" in names, names
        core.read_namespace("kube-node-lease")
        print("ok: namespaces list and read")

        check_dynamic_client()
        failed = False
    finally:
        process.terminate()
        process.wait(timeout=20)
        if failed:
            print(f"kube-sim's log and kubeconfig are kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
