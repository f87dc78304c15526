"""The outcome of a node's death, observed the way users live it -- from the death, next to the
settings Kubernetes itself offers -- for the outcome benchmark, its fast test and the demo.

Setups, side by side in one kube-sim: Kubernetes' defaults (the 300 s tolerations the API server
adds), a pod template tolerating `node.kubernetes.io/unreachable` and `not-ready` for 30 s, the
same for 0 s, and a Deployment guarded by replica-guard. Each death gets a group of nodes of its
own (labelled outcome.replica-guard.io/group=G) and one Deployment per setup pinned to the group
by nodeSelector, created one after another so kube-sim's least-loaded scheduler puts one pod of
each on every node of the group. Then the victim's kubelet dies -- kube-sim's
/sim/kubelets/NODE/stop, which changes no API object, as a real death does not; the death's time
is kube-sim's -- and a Pod watch timestamps every change. Per setup:

- capacity back: death -> the Deployment again has its desired number of Ready, not terminating
  pods on nodes whose kubelet is alive (the simulation's truth, not the API's node status);
- dead endpoints: death -> no pod on the dead node is Ready (and not terminating) in the API,
  i.e. Services stop routing to it.

Both are observed (the time the Pod event arrived), never computed from a formula, and reported
in real-cluster seconds (observed seconds / time scale).

Also watched, for every setup: pods bound to a node while it carries replica-guard's taint
replica-guard.io/suspect (--taint-suspect-nodes), by resourceVersion -- kube-sim's, like etcd's,
is one counter over every object, so a binding written between the taint's addition and its
removal was made while the node carried it (tainted_bindings); and every change of a pod's Ready
condition, for the cost of a false suspicion (false_positive: a slow kubelet whose Lease renewals
land just past replica-guard's grace, whose healthy pods --mark-suspect-pods-not-ready sets
NotReady until the kubelet's next pod status sync).
"""
import json
import random
import statistics
import threading
import time

from kube_api import ApiError
from kube_sim_session import condition

SETUPS = ("defaults", "toleration-30", "toleration-0", "replica-guard")
SUSPECT_TAINT = "replica-guard.io/suspect"
GROUP_LABEL = "outcome.replica-guard.io/group"
SETUP_LABEL = "outcome.replica-guard.io/setup"
NAMESPACE = "default"
NODES_PER_GROUP = 3


def operator_flags(time_scale):
    """replica-guard's defaults, at the cluster's time scale."""
    return ["--node-grace-period", f"{30 * time_scale:g}s", "--node-lease-grace", f"{24 * time_scale:g}s",
            "--scale-down-delay", f"{60 * time_scale:g}s"]


def node_names(api):
    """The nodes of kube-sim, in the order it numbered them (node-1, node-2, ...)."""
    return sorted((n["metadata"]["name"] for n in api.get("/api/v1/nodes")["items"]),
                  key=lambda name: int(name.rsplit("-", 1)[1]))


def deployment(group, setup, replicas):
    """Deployment `group`-`setup` pinned to the group's nodes."""
    name = f"{group}-{setup}"
    labels = {"app": name, GROUP_LABEL: group, SETUP_LABEL: setup}
    pod_spec = {"nodeSelector": {GROUP_LABEL: group},
                "containers": [{"name": "app", "image": "registry.example/app:1.0"}]}
    if setup.startswith("toleration-"):
        seconds = int(setup.split("-")[1])
        pod_spec["tolerations"] = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
            for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]
    annotations = {"replica-guard.io/enabled": "true"} if setup == "replica-guard" else {}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels,
                         "annotations": annotations},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": labels}, "spec": pod_spec}}}


class Pod:
    __slots__ = ("group", "setup", "node", "ready", "terminating", "rv")

    def __init__(self, obj):
        labels = obj["metadata"].get("labels", {})
        self.group, self.setup = labels.get(GROUP_LABEL), labels.get(SETUP_LABEL)
        self.node = obj.get("spec", {}).get("nodeName", "")
        self.ready = condition(obj, "Ready") == "True"
        self.terminating = "deletionTimestamp" in obj["metadata"]
        self.rv = int(obj["metadata"]["resourceVersion"])


class Death:
    """One node's death and what each setup of its group lived through afterwards (seconds
    after the death, as observed; None until it happened)."""

    def __init__(self, group, victim, at, desired, phase):
        self.group, self.victim, self.at, self.desired, self.phase = group, victim, at, desired, phase
        self.affected = set()
        self.capacity_back = {}
        self.endpoints_gone = {}
        # setup -> [(seconds after the death, serving, Ready in the API, spec.replicas)], a sample
        # whenever one of them changed, from the watches (Outcome._sample_timeline).
        self.timeline = {}

    def observe(self, now, pods, dead_nodes):
        for setup in self.affected:
            mine = [p for p in pods if p.setup == setup]
            if setup not in self.capacity_back:
                live = sum(1 for p in mine if p.ready and not p.terminating and p.node not in dead_nodes)
                if live >= self.desired:
                    self.capacity_back[setup] = now - self.at
            if setup not in self.endpoints_gone:
                if not any(p.node == self.victim and p.ready and not p.terminating for p in mine):
                    self.endpoints_gone[setup] = now - self.at

    def done(self):
        return all(s in self.capacity_back and s in self.endpoints_gone for s in self.affected)


class Outcome:
    """Groups of nodes and Deployments in a running kube-sim (reached through `api`, a KubeApi;
    replica-guard runs against it), deaths, and the watches that time them: Pods for the deaths'
    figures, Deployments for every surge (a guarded Deployment's spec.replicas above its desired
    count) and its time."""

    def __init__(self, api, time_scale, nodes_per_group=NODES_PER_GROUP, setups=SETUPS):
        self.api, self.scale = api, time_scale
        self.nodes_per_group, self.setups = nodes_per_group, setups
        self.lock = threading.Condition()
        self.pods = {}       # namespace/name -> Pod
        self.by_group = {}   # group -> {key: Pod}
        self.replicas = {}   # guarded Deployment's name -> spec.replicas
        self.spec_replicas = {}  # every setup's Deployment name -> spec.replicas
        self.surges = []     # (time, Deployment, spec.replicas) of every write above desired
        self.bindings = []   # (resourceVersion, pod key, setup, node) of every pod seen bound
        self.bound = set()   # the keys in self.bindings (a relist re-adds every pod)
        self.tainted = {}    # node -> resourceVersion since which it carries SUSPECT_TAINT
        self.taint_spans = {}  # node -> [(from, to)] resourceVersions it carried SUSPECT_TAINT
        self.ready_changes = []  # (time, pod key, setup, node, ready) of every Ready change
        self.groups = {}     # group -> its node names
        self.deaths = []
        self.dead_nodes = set()
        self.stop = threading.Event()
        self.error = None
        self.threads = []
        for path, apply, forget in (
                ("/api/v1/nodes", self._apply_node, ()),
                ("/api/v1/pods", self._apply_pod, (self.pods, self.by_group)),
                (f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", self._apply_deployment, (self.replicas,))):
            synced = threading.Event()
            thread = threading.Thread(target=self._watch, args=(path, apply, forget, synced), daemon=True)
            thread.start()
            self.threads.append(thread)
            if not synced.wait(60):
                raise RuntimeError(f"the watch of {path} did not start")
            if self.error is not None:
                raise RuntimeError(f"the watch of {path} failed: {self.error}")

    def close(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=45)

    # --- the watches -------------------------------------------------------------------------

    def _apply_pod(self, kind, obj, now):
        key = f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"
        old = self.pods.pop(key, None)
        if old is not None and old.group is not None:
            self.by_group[old.group].pop(key, None)
        group = old.group if old else None
        if kind != "DELETED":
            pod = Pod(obj)
            self.pods[key] = pod
            if pod.group is not None:
                self.by_group.setdefault(pod.group, {})[key] = pod
            group = pod.group
            if pod.node and key not in self.bound:
                self.bound.add(key)
                self.bindings.append((pod.rv, key, pod.setup, pod.node))
            if old is not None and old.ready != pod.ready:
                self.ready_changes.append((now, key, pod.setup, pod.node, pod.ready))
        for death in self.deaths:
            if death.group == group and not death.done():
                death.observe(now, self.by_group.get(group, {}).values(), self.dead_nodes)
        self._sample_timeline(group, now)

    def _apply_node(self, kind, obj, now):
        name, rv = obj["metadata"]["name"], int(obj["metadata"]["resourceVersion"])
        taints = [] if kind == "DELETED" else obj.get("spec", {}).get("taints", [])
        carries = any(t.get("key") == SUSPECT_TAINT for t in taints)
        if carries and name not in self.tainted:
            self.tainted[name] = rv
        elif not carries and name in self.tainted:
            self.taint_spans.setdefault(name, []).append((self.tainted.pop(name), rv))

    def tainted_bindings(self):
        """The pods bound to a node while it carried replica-guard's taint: [(setup, pod key,
        node)]. A node tainted still counts as tainted up to now."""
        with self.lock:
            spans = {node: list(s) for node, s in self.taint_spans.items()}
            for node, since in self.tainted.items():
                spans.setdefault(node, []).append((since, float("inf")))
            return [(setup, key, node) for rv, key, setup, node in self.bindings
                    if any(start < rv < end for start, end in spans.get(node, ()))]

    def _apply_deployment(self, kind, obj, now):
        name = obj["metadata"]["name"]
        self.spec_replicas[name] = None if kind == "DELETED" else obj["spec"].get("replicas", 1)
        self._sample_timeline(obj["metadata"].get("labels", {}).get(GROUP_LABEL), now)
        if obj["metadata"].get("labels", {}).get(SETUP_LABEL) != "replica-guard":
            return
        replicas = None if kind == "DELETED" else obj["spec"].get("replicas", 1)
        if replicas is not None and replicas > self.nodes_per_group and replicas != self.replicas.get(name):
            self.surges.append((now, name, replicas))
        self.replicas[name] = replicas

    def _sample_timeline(self, group, now):
        """Appends to the timeline of each death of `group` (from its death on) every setup whose
        serving replicas (Ready, not terminating, on a live node), Ready-in-the-API replicas (what
        Services route to) or spec.replicas changed. Under the lock."""
        for death in self.deaths:
            if death.group != group or now < death.at:
                continue
            pods = self.by_group.get(group, {}).values()
            for setup in self.setups:
                mine = [p for p in pods if p.setup == setup and p.ready and not p.terminating]
                sample = (sum(1 for p in mine if p.node not in self.dead_nodes), len(mine),
                          self.spec_replicas.get(f"{group}-{setup}"))
                series = death.timeline.setdefault(setup, [])
                if not series or series[-1][1:] != sample:
                    series.append((now - death.at, *sample))

    def _watch(self, path, apply, forget, synced):
        """Lists `path`, then watches it, calling apply(type, object, time) under the lock for
        each item and event; a relist (after 410 Gone) first clears the `forget` maps."""
        try:
            while not self.stop.is_set():
                listed = self.api.get(path)
                with self.lock:
                    for state in forget:
                        state.clear()
                    now = time.monotonic()
                    for obj in listed["items"]:
                        apply("ADDED", obj, now)
                    self.lock.notify_all()
                synced.set()
                try:
                    for event in self.api.watch(path, listed["metadata"]["resourceVersion"], self.stop):
                        now = time.monotonic()
                        with self.lock:
                            apply(event["type"], event["object"], now)
                            self.lock.notify_all()
                except ApiError as e:
                    if e.status != 410:
                        raise
        except Exception as e:  # noqa: BLE001 -- reported by whoever waits on the harness
            with self.lock:
                self.error = e
                self.lock.notify_all()
            synced.set()

    def wait(self, condition, timeout):
        """Waits (woken by the watches, not polling) until condition() holds under the lock;
        False after `timeout` seconds. Raises if a watch failed."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not condition():
                if self.error is not None:
                    raise RuntimeError(f"a watch failed: {self.error}")
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.lock.wait(min(left, 1.0))
            return True

    def new_surges(self, since, seconds):
        """The surges after index `since` of self.surges, waiting up to `seconds` for one."""
        self.wait(lambda: len(self.surges) > since, seconds)
        with self.lock:
            return self.surges[since:]

    # --- groups and deaths -------------------------------------------------------------------

    def prepare(self, groups, nodes):
        """Labels `nodes` into groups of nodes_per_group (`groups` is their number, named g00,
        g01, ..., or a list of names) and creates each group's Deployments, one after another,
        waiting until each runs one Ready pod on every node of the group."""
        per = self.nodes_per_group
        names = [f"g{g:02d}" for g in range(groups)] if isinstance(groups, int) else list(groups)
        if len(nodes) < len(names) * per:
            raise ValueError(f"{len(names)} groups of {per} nodes need {len(names) * per} nodes, "
                             f"kube-sim has {len(nodes)}")
        for g, group in enumerate(names):
            self.groups[group] = nodes[g * per:(g + 1) * per]
            for node in self.groups[group]:
                self.api.merge_patch(f"/api/v1/nodes/{node}", {"metadata": {"labels": {GROUP_LABEL: group}}})
        for group, members in self.groups.items():
            for setup in self.setups:
                self.api.request("POST", f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments",
                                 deployment(group, setup, per))
                if not self.wait(lambda g=group, s=setup, m=members: sorted(
                        p.node for p in self.by_group.get(g, {}).values() if p.setup == s and p.ready) == sorted(m), 60):
                    raise RuntimeError(f"{group}-{setup}: no Ready pod on each of {', '.join(members)} after 60s")

    def kill(self, group, victim=None):
        """Stops the kubelet of a node of `group` (its first node unless `victim` names one) and
        starts timing; returns the Death."""
        victim = victim or self.groups[group][0]
        stopped = self.api.request("POST", f"/sim/kubelets/{victim}/stop")
        at = stopped["stoppedAtMonotonic"]
        renewed = stopped.get("lastRenewalMonotonic")
        death = Death(group, victim, at, self.nodes_per_group,
                      phase=(at - renewed) if renewed is not None else None)
        with self.lock:
            pods = self.by_group.get(group, {}).values()
            death.affected = {p.setup for p in pods if p.node == victim and not p.terminating}
            self.dead_nodes.add(victim)
            self.deaths.append(death)
            death.observe(time.monotonic(), pods, self.dead_nodes)
            self._sample_timeline(group, at)
        return death

    def false_positive(self, group, cycles, grace=24, renew=10, late_by=2):
        """A false suspicion, `cycles` times: the Lease renewals (and status writes) of the first
        node of `group` land grace - renew + late_by seconds late -- each gap between two renewals
        is `late_by` seconds longer than replica-guard's --node-lease-grace (default 24 s), so the
        node turns suspect for about that long each time -- while its kubelet keeps syncing pod
        status every 10 s. Then the kubelet is made prompt again. Returns the node, per setup the
        seconds each of that node's pods stayed NotReady each time (real-cluster seconds; None
        for one that never came back), and how many surges were written meanwhile."""
        node = self.groups[group][0]
        delay = (grace - renew + late_by) * self.scale
        with self.lock:
            first_change, first_surge = len(self.ready_changes), len(self.surges)
        self.api.request("POST", f"/sim/kubelets/{node}/delay?seconds={delay:g}")
        self.wait(lambda: False, cycles * (renew * self.scale + delay))
        self.api.request("POST", f"/sim/kubelets/{node}/delay?seconds=0")
        # Two more pod status syncs for the last NotReady to be put back.
        self.wait(lambda: all(p.ready for p in self.by_group.get(group, {}).values() if p.node == node),
                  2 * renew * self.scale + 5)
        with self.lock:
            changes = [c for c in self.ready_changes[first_change:] if c[3] == node]
            surges = len(self.surges) - first_surge
        not_ready = {setup: [] for setup in self.setups}
        since = {}
        for at, key, setup, _, ready in changes:
            if not ready:
                since[key] = at
            elif key in since:
                not_ready.setdefault(setup, []).append((at - since.pop(key)) / self.scale)
        for key in since:
            not_ready.setdefault(self.pods[key].setup if key in self.pods else None, []).append(None)
        return {"node": node, "not_ready": not_ready, "surges": surges}

    def revive(self, death):
        """Restarts the victim's kubelet (a rebooted node)."""
        self.api.request("POST", f"/sim/kubelets/{death.victim}/start")
        with self.lock:
            self.dead_nodes.discard(death.victim)
            self._sample_timeline(death.group, time.monotonic())

    def run_deaths(self, count, spacing, timeout, say=print):
        """Kills one node of each of `count` groups, `spacing` seconds plus a random part of the
        kubelet's renew interval apart (deaths at random phases of the Lease renewal), revives each
        once every setup of its group has been measured, and returns the Deaths. A death that is
        not over after `timeout` seconds is left as it is (its missing figures reported)."""
        renew = 10 * self.scale
        schedule = list(self.groups)[:count]
        pending = []
        next_death = time.monotonic()
        deadline = None
        while schedule or (pending and time.monotonic() < deadline):
            if schedule and time.monotonic() >= next_death:
                death = self.kill(schedule.pop(0))
                say(f"{death.group}: the kubelet of {death.victim} died" + (
                    f" {death.phase / self.scale:4.1f}s after its last Lease renewal" if death.phase is not None else ""))
                pending.append(death)
                next_death = time.monotonic() + spacing + random.uniform(0, renew)
                deadline = time.monotonic() + timeout
            with self.lock:  # woken by every Pod event; the next death is due at next_death
                self.lock.wait(max(0.0, min(0.5, next_death - time.monotonic())) if schedule else 0.5)
            pending = self._revive_finished(pending)
        return self.deaths

    def _revive_finished(self, pending):
        with self.lock:
            if self.error is not None:
                raise RuntimeError(f"a watch failed: {self.error}")
            finished = [d for d in pending if d.done()]
        for death in finished:
            self.revive(death)
        return [d for d in pending if d not in finished]


def summarize(deaths, time_scale, setups=SETUPS):
    """Per setup: how many deaths touched it, and p50/max of capacity back and dead endpoints in
    real-cluster seconds (None where a death never got there)."""
    rows = {}
    for setup in setups:
        touched = [d for d in deaths if setup in d.affected]
        row = {"deaths": len(touched)}
        for name, figure in (("capacity_back", lambda d: d.capacity_back.get(setup)),
                             ("dead_endpoints", lambda d: d.endpoints_gone.get(setup))):
            values = [figure(d) for d in touched]
            seen = sorted(v / time_scale for v in values if v is not None)
            row[name] = {"p50": statistics.median(seen) if seen else None, "max": seen[-1] if seen else None,
                         "missing": sum(1 for v in values if v is None), "values": seen}
        rows[setup] = row
    return rows


def table(rows):
    """The summary as a Markdown table (p50 / max, or the one figure of a single death)."""
    single = all(row["deaths"] <= 1 for row in rows.values())

    def cell(figure):
        if figure["p50"] is None:
            text = "-"
        else:
            text = f"{figure['p50']:.1f}" if single else f"{figure['p50']:.1f} / {figure['max']:.1f}"
        return text + (f" ({figure['missing']} never)" if figure["missing"] else "")
    stat = "" if single else " p50 / max"
    lines = [f"| setup | deaths | capacity back{stat} (s) | dead endpoints{stat} (s) |",
             "|---|---|---|---|"]
    for setup, row in rows.items():
        lines.append(f"| {setup} | {row['deaths']} | {cell(row['capacity_back'])} | {cell(row['dead_endpoints'])} |")
    return "\n".join(lines)


def real_seconds(timeline, time_scale):
    """A Death's timeline with its times in real-cluster seconds: setup -> [{"t", "serving",
    "ready_in_api", "replicas"}]."""
    return {setup: [{"t": t / time_scale, "serving": serving, "ready_in_api": ready, "replicas": replicas}
                    for t, serving, ready, replicas in samples]
            for setup, samples in timeline.items()}


def dump(deaths, time_scale, path):
    """Every death's figures (real-cluster seconds) as JSON, for plots and later comparison."""
    with open(path, "w") as f:
        json.dump([{"group": d.group, "victim": d.victim,
                    "phase": None if d.phase is None else d.phase / time_scale,
                    "affected": sorted(d.affected),
                    "capacity_back": {s: v / time_scale for s, v in d.capacity_back.items()},
                    "dead_endpoints": {s: v / time_scale for s, v in d.endpoints_gone.items()},
                    "timeline": real_seconds(d.timeline, time_scale)}
                   for d in deaths], f, indent=1)
