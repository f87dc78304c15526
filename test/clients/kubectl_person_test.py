#!/usr/bin/python3
"""kubectl 1.35 against kube-sim as a person operates a Deployment through a node failure: a
server-side dry run and apply, diff, wait, set image, rollout status/history/undo/restart with
change causes, get -w --output-watch-events, a node's death seen in get/describe/events, cordon,
drain through the Eviction API honouring a PodDisruptionBudget, uncordon, wait --for=delete and
deleting the namespace through its finalization. Each check asserts what the person would
look at (the printed columns, the revisions, the Events), not only the exit code. Skips (77)
without kubectl.

Usage: kubectl_person_test.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from kube_sim_session import Checks, KubeSim, condition, skip_without_kubectl  # noqa: E402

TIMEOUT = 60  # seconds, generous: every wait ends as soon as its condition holds
NS = "shop"


def manifest(image, replicas=4):
    """The person's manifest: a Deployment and its PodDisruptionBudget (one pod down at most)."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "web", "namespace": NS},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "web", "image": image}]}}}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "web", "namespace": NS},
         "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    ]})


def kubectl(server, *args, stdin=None):
    """kubectl ARGS: (exit code, stdout + stderr)."""
    result = subprocess.run([server.kubectl, "--kubeconfig", server.kubeconfig, *args], input=stdin,
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


def pods(server):
    return [p for p in server.get("pods", "-n", NS, "-l", "app=web")["items"]
            if "deletionTimestamp" not in p["metadata"]]


def history_revisions(server):
    """`kubectl rollout history` as the person reads it: {revision: change-cause}."""
    out = server.run("rollout", "history", "deploy/web", "-n", NS)
    rows = [line.split(None, 1) for line in out.splitlines()[2:] if line.strip()]
    return {int(row[0]): (row[1].strip() if len(row) > 1 else "") for row in rows}


def check_apply(checks, server):
    code, out = kubectl(server, "apply", "--server-side", "--dry-run=server", "-f", "-",
                        stdin=manifest("registry.example/web:1.0"))
    checks.check("apply --server-side --dry-run=server reports what it would do",
                 code == 0 and "serverside-applied (server dry run)" in out, out)
    checks.check("and creates nothing", server.get("deployment", "web", "-n", NS) is None)
    code, out = kubectl(server, "apply", "--server-side", "-f", "-", stdin=manifest("registry.example/web:1.0"))
    checks.check("apply --server-side creates the Deployment and its budget",
                 code == 0 and out.count("serverside-applied") == 2, out)
    managers = [m["manager"] for m in server.get("deployment", "web", "-n", NS, "--show-managed-fields")
                ["metadata"].get("managedFields", [])]
    checks.check("the applied fields belong to the kubectl field manager", "kubectl" in managers,
                 str(managers))
    code, out = kubectl(server, "wait", "--for=condition=Available", "deploy/web", "-n", NS,
                        f"--timeout={TIMEOUT}s")
    checks.check("wait --for=condition=Available", code == 0 and "condition met" in out, out)

    code, out = kubectl(server, "diff", "--server-side", "-f", "-", stdin=manifest("registry.example/web:1.0"))
    checks.check("diff of the live state: no difference, exit 0", code == 0 and out == "", out)
    code, out = kubectl(server, "diff", "--server-side", "-f", "-", stdin=manifest("registry.example/web:1.1"))
    checks.check("diff of a changed image: exit 1, the image lines shown",
                 code == 1 and "-      - image: registry.example/web:1.0" in out
                 and "+      - image: registry.example/web:1.1" in out, out)


def check_rollouts(checks, server):
    server.run("annotate", "deploy/web", "-n", NS, "kubernetes.io/change-cause=first release")
    server.run("set", "image", "deploy/web", "-n", NS, "web=registry.example/web:2.0")
    server.run("annotate", "deploy/web", "-n", NS, "--overwrite", "kubernetes.io/change-cause=image 2.0")
    code, out = kubectl(server, "rollout", "status", "deploy/web", "-n", NS, f"--timeout={TIMEOUT}s")
    checks.check("rollout status follows the new image to the end",
                 code == 0 and 'deployment "web" successfully rolled out' in out, out)
    checks.check("every pod runs web:2.0", all(p["spec"]["containers"][0]["image"].endswith(":2.0")
                                               for p in pods(server)))
    history = history_revisions(server)
    checks.check("rollout history: revisions 1 and 2 with their change causes",
                 history == {1: "first release", 2: "image 2.0"}, str(history))

    server.run("rollout", "undo", "deploy/web", "-n", NS)
    server.run("rollout", "status", "deploy/web", "-n", NS, f"--timeout={TIMEOUT}s")
    image = server.get("deploy", "web", "-n", NS)["spec"]["template"]["spec"]["containers"][0]["image"]
    checks.check("rollout undo brings back web:1.0", image == "registry.example/web:1.0", image)
    history = history_revisions(server)
    checks.check("and revision 1 became revision 3", sorted(history) == [2, 3], str(history))

    server.run("rollout", "restart", "deploy/web", "-n", NS)
    code, out = kubectl(server, "rollout", "status", "deploy/web", "-n", NS, f"--timeout={TIMEOUT}s")
    template = server.get("deploy", "web", "-n", NS)["spec"]["template"]["metadata"]
    checks.check("rollout restart stamps the template and rolls out",
                 code == 0 and "kubectl.kubernetes.io/restartedAt" in template.get("annotations", {}),
                 out)
    checks.check("as revision 4", sorted(history_revisions(server)) == [2, 3, 4],
                 str(history_revisions(server)))


def check_watch(checks, server):
    watcher = subprocess.Popen(
        [server.kubectl, "--kubeconfig", server.kubeconfig, "get", "pods", "-n", NS, "-l", "app=web",
         "-w", "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        before = {p["metadata"]["name"] for p in pods(server)}
        server.run("scale", "deploy/web", "-n", NS, "--replicas=6")
        checks.eventually("six pods Ready after scaling up", lambda: sum(
            condition(p, "Ready") == "True" for p in pods(server)) == 6, TIMEOUT)
        server.run("scale", "deploy/web", "-n", NS, "--replicas=4")
        checks.eventually("four pods after scaling down", lambda: len(pods(server)) == 4, TIMEOUT)
        added = {p["metadata"]["name"] for p in server.get("pods", "-n", NS, "-l", "app=web")["items"]}
    finally:
        time.sleep(0.5)  # let the last events reach the watcher's output before it is stopped
        watcher.terminate()
        out = watcher.communicate(timeout=10)[0]
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    kinds = {row[0] for row in rows}
    checks.check("get -w --output-watch-events printed ADDED, MODIFIED and DELETED rows",
                 {"ADDED", "MODIFIED", "DELETED"} <= kinds, out)
    checks.check("the initial rows are the pods that were there",
                 {row[1] for row in rows if row[0] == "ADDED"} >= before, out)
    checks.check("the scaled pods appear in it", added <= {row[1] for row in rows}, out)


def check_node_failure(checks, server):
    victim = pods(server)[0]["spec"]["nodeName"]
    stranded = {p["metadata"]["name"] for p in pods(server) if p["spec"]["nodeName"] == victim}
    server.run("create", "--raw", f"/sim/kubelets/{victim}/stop", "-f", "/dev/null")
    checks.eventually(f"get nodes shows {victim} NotReady", lambda: any(
        line.split()[:2] == [victim, "NotReady"] for line in server.run("get", "nodes").splitlines()),
        TIMEOUT)
    described = server.run("describe", "node", victim)
    checks.check("describe node: Ready Unknown, 'Kubelet stopped posting node status.'",
                 "Kubelet stopped posting node status." in described, described)
    checks.check("describe node: its Events section shows NodeNotReady",
                 "NodeNotReady" in described.split("Events:")[-1], described)
    checks.eventually("describe node: the unreachable NoExecute taint, added rate-limited", lambda:
                      "node.kubernetes.io/unreachable:NoExecute" in server.run("describe", "node", victim),
                      TIMEOUT)
    checks.eventually("the stranded pods are replaced on live nodes", lambda: not (
        {p["metadata"]["name"] for p in pods(server)} & stranded) and len(pods(server)) == 4
        and all(p["spec"].get("nodeName") != victim for p in pods(server)), TIMEOUT)
    code, out = kubectl(server, "events", "-n", NS)
    checks.check("kubectl events -n shop shows the pods' NodeNotReady and TaintManagerEviction",
                 code == 0 and "NodeNotReady" in out and "TaintManagerEviction" in out, out)
    server.run("create", "--raw", f"/sim/kubelets/{victim}/start", "-f", "/dev/null")
    checks.eventually(f"{victim} Ready again", lambda: any(
        line.split()[:2] == [victim, "Ready"] for line in server.run("get", "nodes").splitlines()),
        TIMEOUT)
    return victim


def check_drain(checks, server):
    checks.eventually("the budget allows one disruption", lambda: any(
        line.split()[:4] == ["web", "N/A", "1", "1"] for line in server.run("get", "pdb", "-n", NS).splitlines()),
        TIMEOUT)
    # The node with the most web pods: draining it runs into the budget.
    by_node = {}
    for p in pods(server):
        by_node.setdefault(p["spec"]["nodeName"], []).append(p["metadata"]["name"])
    node, drained = max(by_node.items(), key=lambda item: len(item[1]))
    code, out = kubectl(server, "cordon", node)
    checks.check("cordon marks the node SchedulingDisabled", code == 0 and any(
        line.split()[:2] == [node, "Ready,SchedulingDisabled"] for line in server.run("get", "nodes").splitlines()), out)
    code, out = kubectl(server, "drain", node, "--ignore-daemonsets", f"--timeout={TIMEOUT}s")
    checks.check(f"drain evicts the {len(drained)} web pods on {node}",
                 code == 0 and all(f"pod/{name} evicted" in out for name in drained)
                 and f"node/{node} drained" in out, out)
    if len(drained) > 1:
        checks.check("through the Eviction API, held back by the budget at least once",
                     "Cannot evict pod as it would violate the pod's disruption budget." in out, out)
    checks.check("no web pod is left on the drained node",
                 all(p["spec"].get("nodeName") != node for p in pods(server)))
    code, out = kubectl(server, "uncordon", node)
    checks.check("uncordon makes it schedulable again", code == 0 and any(
        line.split()[:2] == [node, "Ready"] for line in server.run("get", "nodes").splitlines()), out)


def check_describe(checks, server):
    described = server.run("describe", "deploy/web", "-n", NS)
    checks.check("describe deploy: replicas and the new ReplicaSet",
                 "4 desired | 4 updated | 4 total | 4 available" in described
                 and "NewReplicaSet:" in described, described)
    checks.check("describe deploy: its Events section shows the scaling of its ReplicaSets",
                 "ScalingReplicaSet" in described.split("Events:")[-1], described)
    name = pods(server)[0]["metadata"]["name"]
    checks.eventually("describe pod: its Events section tells its story (Scheduled ... Started)",
                      lambda: all(reason in server.run("describe", "pod", name, "-n", NS).split("Events:")[-1]
                                  for reason in ("Scheduled", "Pulled", "Created", "Started")), TIMEOUT)
    described = server.run("describe", "pod", name, "-n", NS)
    checks.check("describe pod: Status Running, Ready True, its node",
                 "Status:           Running" in described and "Node:" in described, described)


def check_delete(checks, server):
    name = pods(server)[0]["metadata"]["name"]
    server.run("delete", "pod", name, "-n", NS, "--wait=false")
    code, out = kubectl(server, "wait", "--for=delete", f"pod/{name}", "-n", NS, f"--timeout={TIMEOUT}s")
    checks.check("wait --for=delete returns once the pod is gone", code == 0, out)

    watcher = subprocess.Popen(
        [server.kubectl, "--kubeconfig", server.kubeconfig, "get", "namespace", NS, "-w",
         "--output-watch-events", "-o", "custom-columns=EVENT:.type,PHASE:.object.status.phase"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.5)  # the watch is established (its first row printed) before the delete
        code, out = kubectl(server, "delete", "namespace", NS, f"--timeout={TIMEOUT}s")
    finally:
        time.sleep(0.5)
        watcher.terminate()
        seen = watcher.communicate(timeout=10)[0]
    checks.check("delete namespace waits until it is gone", code == 0 and server.get("namespace", NS) is None, out)
    rows = [line.split() for line in seen.splitlines()[1:] if line.strip()]
    checks.check("the namespace went Terminating before it was deleted",
                 ["MODIFIED", "Terminating"] in rows and rows[-1][0] == "DELETED", seen)
    left = {kind: [item["metadata"]["name"] for item in server.get(kind, "-n", NS)["items"]]
            for kind in ("deployments", "replicasets", "pods", "poddisruptionbudgets")}
    checks.check("its Deployment, ReplicaSets, pods and budget went with it",
                 not any(left.values()), str(left))


@skip_without_kubectl
def main():
    checks = Checks("kubectl-person")
    with KubeSim(sys.argv[1], "--nodes", "3", "--time-scale", "0.05") as server:
        server.run("create", "namespace", NS)
        check_apply(checks, server)
        check_rollouts(checks, server)
        check_watch(checks, server)
        check_node_failure(checks, server)
        check_drain(checks, server)
        check_describe(checks, server)
        check_delete(checks, server)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
