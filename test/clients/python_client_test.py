#!/usr/bin/python3
"""The official Kubernetes Python client (Debian's python3-kubernetes, 22.6) against kube-sim,
used as a program that manages a cluster would use it: typed CRUD of Namespaces, Deployments,
Pods, Nodes, Leases, Events and ConfigMaps; a paginated LIST; a watch from a resourceVersion
that the client resumes by itself after kube-sim ends it, and that ends in a 410 the client
reports after history was compacted; the scale subresource read and patched; errors as
ApiException with the API server's status and reason; deletion with each propagation policy.

Known differences from a real cluster that are the client's, not kube-sim's, are asserted as
documented upstream (see KNOWN_CLIENT_LIMITS). Skips (77) without the module or kubectl.

Usage: python_client_test.py BUILD_DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import kube_sim_session  # noqa: E402
from kube_sim_session import Checks, KubeSim, skip_without_kubectl  # noqa: E402

try:
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    print("skipped: the kubernetes Python module is missing (apt-get install python3-kubernetes)")
    sys.exit(77)

TIMEOUT = 60  # seconds, generous: every wait ends as soon as its condition holds
NS = "clients"

# Behaviour of python3-kubernetes 22.6 that a real API server meets too, with its upstream record.
KNOWN_CLIENT_LIMITS = {
    # EventsV1Event's model requires event_time; Events written through core/v1 (every
    # kubelet's and controller's, via client-go's recorder) have eventTime null, so listing
    # them through events.k8s.io/v1 raises ValueError in the model, on a real cluster too.
    "events.k8s.io event_time": "https://github.com/kubernetes-client/python/issues/1616",
    # Generated from Kubernetes 1.22's API: autoscaling/v2 (GA in 1.23) has no API class; HPAs
    # are read through autoscaling/v1 (or the removed v2beta2), from the same objects.
    "autoscaling/v2": "https://github.com/kubernetes-client/python#compatibility",
}


class Expect(Checks):
    def true(self, ok, what):
        return self.check(what, bool(ok))

    def equal(self, actual, expected, what):
        return self.check(what, actual == expected, f"got {actual!r}, expected {expected!r}")


def labels_of(obj):
    return dict(obj.metadata.labels or {})


def deployment(name, replicas=2, image="registry.example/web:1.0"):
    labels = {"app": name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name, labels={"suite": "python-client"}),
        spec=client.V1DeploymentSpec(
            replicas=replicas, selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image=image)]))))


def api_error(call):
    """The ApiException `call` raises (an AssertionError if it raises none)."""
    try:
        call()
    except ApiException as e:
        return e
    raise AssertionError("expected an ApiException")


def wait_until(what, check):
    kube_sim_session.wait_for(what, check, TIMEOUT)


def gone(read):
    try:
        read()
        return False
    except ApiException as e:
        if e.status != 404:
            raise
        return True


def check_namespaces(checks, core):
    created = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(
        name=NS, labels={"team": "a"})))
    checks.true(isinstance(created, client.V1Namespace) and created.metadata.uid,
                 "create_namespace returns a typed Namespace with a uid")
    checks.equal(created.status.phase, "Active", "a new Namespace is Active")
    patched = core.patch_namespace(NS, {"metadata": {"labels": {"team": "b"}}})
    checks.equal(labels_of(patched).get("team"), "b", "patch_namespace (merge patch) changes a label")
    names = [n.metadata.name for n in core.list_namespace(label_selector="team=b").items]
    checks.equal(names, [NS], "list_namespace with a label selector")


def check_configmaps(checks, core):
    cm = core.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="settings"), data={"mode": "fast"}))
    cm.data["mode"] = "safe"
    replaced = core.replace_namespaced_config_map("settings", NS, cm)
    checks.equal(replaced.data, {"mode": "safe"}, "replace_namespaced_config_map")
    checks.true(int(replaced.metadata.resource_version) > int(cm.metadata.resource_version),
                 "a replace moves the resourceVersion forward")

    # A replace with a stale resourceVersion: 409 Conflict, as optimistic concurrency wants.
    cm.data["mode"] = "stale"
    e = api_error(lambda: core.replace_namespaced_config_map("settings", NS, cm))
    checks.equal(e.status, 409, "a stale replace is ApiException 409")
    checks.equal(json.loads(e.body).get("reason"), "Conflict", "its Status reason is Conflict")
    e = api_error(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="settings"))))
    checks.equal((e.status, json.loads(e.body).get("reason")), (409, "AlreadyExists"),
                 "creating an existing name is 409 AlreadyExists")
    e = api_error(lambda: core.read_namespaced_config_map("missing", NS))
    checks.equal((e.status, json.loads(e.body).get("reason")), (404, "NotFound"),
                 "reading a missing ConfigMap is 404 NotFound")
    e = api_error(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="Not_A_Name"))))
    body = json.loads(e.body)
    checks.equal((e.status, body.get("reason")), (422, "Invalid"), "an invalid name is 422 Invalid")
    causes = body.get("details", {}).get("causes", [])
    checks.true(any(c.get("field") == "metadata.name" for c in causes),
                 f"the 422 names the field metadata.name (causes: {causes})")
    core.delete_namespaced_config_map("settings", NS)
    checks.true(gone(lambda: core.read_namespaced_config_map("settings", NS)),
                 "delete_namespaced_config_map removes it")


def check_deployments_and_scale(checks, apps, core):
    created = apps.create_namespaced_deployment(NS, deployment("web", replicas=2))
    checks.true(isinstance(created, client.V1Deployment), "create_namespaced_deployment is typed")
    wait_until("web's 2 pods Ready", lambda: (apps.read_namespaced_deployment_status("web", NS)
                                               .status.ready_replicas or 0) == 2)
    pods = core.list_namespaced_pod(NS, label_selector="app=web").items
    checks.equal(len(pods), 2, "the Deployment's pods are listed as V1Pod with a label selector")
    checks.true(all(p.status.phase == "Running" and p.spec.node_name for p in pods),
                 "its pods are bound and Running")

    scale = apps.read_namespaced_deployment_scale("web", NS)
    checks.true(isinstance(scale, client.V1Scale), "read_namespaced_deployment_scale is a V1Scale")
    checks.equal((scale.spec.replicas, scale.status.replicas), (2, 2), "the scale's spec and status")
    checks.equal(scale.status.selector, "app=web", "the scale's status.selector is the label selector")
    scaled = apps.patch_namespaced_deployment_scale("web", NS, {"spec": {"replicas": 4}})
    checks.equal(scaled.spec.replicas, 4, "patch_namespaced_deployment_scale returns the new scale")
    checks.equal(apps.read_namespaced_deployment("web", NS).spec.replicas, 4,
                 "the scale patch changed the Deployment's spec.replicas")
    wait_until("web's 4 pods Ready", lambda: (apps.read_namespaced_deployment_status("web", NS)
                                               .status.ready_replicas or 0) == 4)

    # A strategic merge patch of the template (the client's default for a dict body on a
    # built-in kind) rolls out a new ReplicaSet.
    apps.patch_namespaced_deployment("web", NS, {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "registry.example/web:2.0"}]}}}})
    wait_until("the rollout to web:2.0", lambda: all(
        p.spec.containers[0].image.endswith(":2.0") and p.status.phase == "Running"
        for p in core.list_namespaced_pod(NS, label_selector="app=web").items
        if p.metadata.deletion_timestamp is None) and len(
        [p for p in core.list_namespaced_pod(NS, label_selector="app=web").items
         if p.metadata.deletion_timestamp is None]) == 4)
    sets = apps.list_namespaced_replica_set(NS, label_selector="app=web").items
    checks.equal(len(sets), 2, "the template patch made a second ReplicaSet")
    checks.equal(sorted(rs.metadata.annotations.get("deployment.kubernetes.io/revision") for rs in sets),
                 ["1", "2"], "the ReplicaSets carry revisions 1 and 2")

    e = api_error(lambda: apps.patch_namespaced_deployment_scale("web", NS, {"spec": {"replicas": -1}}))
    checks.equal(e.status, 422, "a negative scale is 422")


def check_autoscaling(checks, autoscaling):
    # KNOWN_CLIENT_LIMITS["autoscaling/v2"]
    checks.true(not hasattr(client, "AutoscalingV2Api"), "22.6 has no autoscaling/v2 API class")
    created = autoscaling.create_namespaced_horizontal_pod_autoscaler(NS, client.V1HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V1CrossVersionObjectReference(api_version="apps/v1",
                                                                  kind="Deployment", name="web"),
            min_replicas=2, max_replicas=6, target_cpu_utilization_percentage=60)))
    read = autoscaling.read_namespaced_horizontal_pod_autoscaler("web", NS)
    checks.equal((created.spec.max_replicas, read.spec.target_cpu_utilization_percentage), (6, 60),
                 "an HPA through autoscaling/v1 reads back its CPU target")
    autoscaling.delete_namespaced_horizontal_pod_autoscaler("web", NS)


def check_pods_nodes_leases(checks, core, coordination):
    pod = core.create_namespaced_pod(NS, client.V1Pod(
        metadata=client.V1ObjectMeta(name="single"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="registry.example/c:1")])))
    checks.equal(pod.status.phase, "Pending", "a new bare pod is Pending")
    wait_until("the bare pod Running", lambda: core.read_namespaced_pod_status("single", NS)
               .status.phase == "Running")
    running = core.read_namespaced_pod("single", NS)
    checks.true(running.status.container_statuses and running.status.container_statuses[0].ready,
                 "its container status is typed and ready")

    nodes = core.list_node().items
    checks.true(len(nodes) == 3 and all(isinstance(n, client.V1Node) for n in nodes),
                 "list_node returns the three nodes typed")
    node = nodes[0].metadata.name
    cordoned = core.patch_node(node, {"spec": {"unschedulable": True}})
    checks.equal(cordoned.spec.unschedulable, True, "patch_node cordons a node")
    checks.equal(core.patch_node(node, {"spec": {"unschedulable": None}}).spec.unschedulable, None,
                 "a null in a merge patch removes the field again")
    checks.true(core.read_node_status(node).status.node_info.kube_proxy_version is not None,
                 "read_node_status: nodeInfo carries every field the Go type always writes")

    lease = coordination.create_namespaced_lease(NS, client.V1Lease(
        metadata=client.V1ObjectMeta(name="leader"),
        spec=client.V1LeaseSpec(holder_identity="a", lease_duration_seconds=15)))
    lease.spec.holder_identity = "b"
    lease.spec.lease_transitions = 1
    replaced = coordination.replace_namespaced_lease("leader", NS, lease)
    checks.equal((replaced.spec.holder_identity, replaced.spec.lease_transitions), ("b", 1),
                 "replace_namespaced_lease hands the Lease over")
    node_leases = coordination.list_namespaced_lease("kube-node-lease").items
    checks.equal(sorted(x.metadata.name for x in node_leases), sorted(n.metadata.name for n in nodes),
                 "every node has its Lease in kube-node-lease")
    checks.true(all(x.spec.renew_time for x in node_leases), "node Leases carry a renewTime")


def check_events(checks, core, events_api):
    pod = core.read_namespaced_pod("single", NS)
    created = core.create_namespaced_event(NS, client.CoreV1Event(
        metadata=client.V1ObjectMeta(generate_name="single."),
        involved_object=client.V1ObjectReference(kind="Pod", namespace=NS, name="single",
                                                 uid=pod.metadata.uid, api_version="v1"),
        reason="Checked", message="checked by the Python client", type="Normal",
        source=client.V1EventSource(component="python-client-test"), count=1))
    checks.true(created.metadata.name.startswith("single."), "generateName gives the Event a name")
    found = core.list_namespaced_event(NS, field_selector="involvedObject.name=single").items
    checks.true(any(e.reason == "Checked" for e in found),
                 "list_namespaced_event with an involvedObject field selector finds it")

    series = events_api.create_namespaced_event(NS, client.EventsV1Event(
        metadata=client.V1ObjectMeta(generate_name="single."),
        event_time=created.metadata.creation_timestamp, reporting_controller="example.com/checker",
        reporting_instance="checker-1", action="Check", reason="CheckedAgain", type="Normal",
        regarding=client.V1ObjectReference(kind="Pod", namespace=NS, name="single", uid=pod.metadata.uid),
        note="checked through events.k8s.io/v1"))
    checks.true(isinstance(series, client.EventsV1Event), "events.k8s.io/v1 create is typed")
    in_core = core.read_namespaced_event(series.metadata.name, NS)
    checks.equal((in_core.reason, in_core.message, in_core.involved_object.name),
                 ("CheckedAgain", "checked through events.k8s.io/v1", "single"),
                 "an events.k8s.io Event reads back through core/v1 with note as message")

    # KNOWN_CLIENT_LIMITS["events.k8s.io event_time"]: the core/v1 Event has no eventTime.
    try:
        events_api.list_namespaced_event(NS)
        checks.true(False, "listing a core/v1 Event through events.k8s.io/v1 should hit the "
                            f"client's event_time check ({KNOWN_CLIENT_LIMITS['events.k8s.io event_time']})")
    except ValueError as e:
        checks.true("event_time" in str(e), f"the client's own check names event_time: {e}")


def check_paginated_list(checks, core):
    for i in range(7):
        core.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=f"page-{i}", labels={"paged": "yes"})))

    def pages(**selector):
        names, rvs, remaining, token = [], set(), [], None
        while True:
            page = core.list_namespaced_config_map(NS, limit=3, _continue=token, **selector)
            rvs.add(page.metadata.resource_version)
            remaining.append(page.metadata.remaining_item_count)
            names += [cm.metadata.name for cm in page.items]
            token = page.metadata._continue
            if not token:
                return names, rvs, remaining

    everything = sorted(cm.metadata.name for cm in core.list_namespaced_config_map(NS).items)
    names, rvs, remaining = pages()
    checks.equal(names, everything, "limit=3 pages through the namespace in order, each object once")
    checks.equal(len(rvs), 1, "every page is the same snapshot (one resourceVersion)")
    checks.equal(remaining, [len(everything) - 3 * (i + 1) for i in range(len(remaining) - 1)] + [None],
                 "without a selector each page but the last counts what remains")
    names, rvs, remaining = pages(label_selector="paged=yes")
    checks.equal(names, [f"page-{i}" for i in range(7)], "limit=3 with a label selector: 7 in 3 pages")
    # The API server counts what remains only when nothing is filtered (etcd3 store GetList:
    # remainingItemCount only for an empty predicate).
    checks.equal(remaining, [None, None, None], "with a selector no page counts what remains")


def check_watch(checks, server, core):
    listed = core.list_namespaced_config_map(NS, label_selector="watched=yes")
    rv = listed.metadata.resource_version
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(
        name="w-1", labels={"watched": "yes"})))
    stream = watch.Watch()
    seen = []
    # Without timeout_seconds the client resumes from the last resourceVersion it saw whenever
    # the server ends the stream: here kube-sim ends every watch after the first event.
    for event in stream.stream(core.list_namespaced_config_map, NS, label_selector="watched=yes",
                               resource_version=rv):
        checks.true(isinstance(event["object"], client.V1ConfigMap), "watch events are typed")
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 1:
            server.run("create", "--raw", "/sim/faults/drop-watches", "-f", "/dev/null")
            core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(
                name="w-2", labels={"watched": "yes"})))
        elif len(seen) == 2:
            core.delete_namespaced_config_map("w-1", NS)
        else:
            stream.stop()
    checks.equal(seen, [("ADDED", "w-1"), ("ADDED", "w-2"), ("DELETED", "w-1")],
                 "a watch from a resourceVersion sees every change once, across a dropped watch")

    # After compaction the resume point is gone: the server answers with an ERROR event 410;
    # the client retries once, then raises ApiException(410) -- the caller relists.
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="later")))
    server.run("create", "--raw", "/sim/faults/compact", "-f", "/dev/null")
    try:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=rv,
                                      timeout_seconds=TIMEOUT):
            pass
        checks.true(False, "a watch from a compacted resourceVersion must end in 410")
    except ApiException as e:
        checks.equal(e.status, 410, "a watch from a compacted resourceVersion: ApiException 410")
    relisted = core.list_namespaced_config_map(NS)
    checks.true(any(cm.metadata.name == "later" for cm in relisted.items),
                 "the relist after the 410 has the newer object")


def check_propagation(checks, apps, core):
    def make(name):
        apps.create_namespaced_deployment(NS, deployment(name, replicas=1))
        wait_until(f"{name}'s pod", lambda: len(core.list_namespaced_pod(NS, label_selector=f"app={name}").items) == 1)

    def replica_sets(name):
        return apps.list_namespaced_replica_set(NS, label_selector=f"app={name}").items

    def pods(name):
        return [p for p in core.list_namespaced_pod(NS, label_selector=f"app={name}").items
                if p.metadata.deletion_timestamp is None]

    make("orphan")
    apps.delete_namespaced_deployment("orphan", NS, propagation_policy="Orphan")
    wait_until("the orphaning delete", lambda: gone(lambda: apps.read_namespaced_deployment("orphan", NS)))
    kept = replica_sets("orphan")
    checks.true(len(kept) == 1 and not kept[0].metadata.owner_references,
                 "Orphan: the ReplicaSet stays, without its ownerReference")
    checks.equal(len(pods("orphan")), 1, "Orphan: the pod stays")

    make("background")
    apps.delete_namespaced_deployment("background", NS, propagation_policy="Background")
    wait_until("Background: the ReplicaSet and pod collected",
               lambda: not replica_sets("background") and not pods("background"))
    checks.true(True, "Background: the ReplicaSet and its pod are collected")

    make("foreground")
    body = client.V1DeleteOptions(propagation_policy="Foreground")
    apps.delete_namespaced_deployment("foreground", NS, body=body)
    wait_until("Foreground: the Deployment gone", lambda: gone(
        lambda: apps.read_namespaced_deployment("foreground", NS)))
    checks.true(not replica_sets("foreground"),
                 "Foreground: the Deployment goes only after its ReplicaSet")

    e = api_error(lambda: apps.delete_namespaced_deployment("missing", NS))
    checks.equal(e.status, 404, "deleting a missing Deployment is 404")


@skip_without_kubectl
def main():
    build_dir = sys.argv[1]
    checks = Expect("python-client")
    with KubeSim(build_dir, "--nodes", "3", "--time-scale", "0.05") as server:
        config.load_kube_config(config_file=server.kubeconfig)
        core, apps = client.CoreV1Api(), client.AppsV1Api()
        coordination, events_api = client.CoordinationV1Api(), client.EventsV1Api()
        check_namespaces(checks, core)
        check_configmaps(checks, core)
        check_deployments_and_scale(checks, apps, core)
        check_autoscaling(checks, client.AutoscalingV1Api())
        check_pods_nodes_leases(checks, core, coordination)
        check_events(checks, core, events_api)
        check_paginated_list(checks, core)
        check_watch(checks, server, core)
        check_propagation(checks, apps, core)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
