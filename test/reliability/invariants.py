"""The invariant checker of the reliability tests: reads kube-sim's record of every write
(/sim/writes, see sim/write_record.hpp) and names each write of the operator that breaks one of
its promises:

  1. a write of the `replica-guard` field manager leaves a guarded Deployment's spec.replicas
     inside [desired, desired + 2 x max-surge], as its annotations say at that moment (in the
     written object). The README's policy: max-surge bounds the extra pods that can serve, and
     replacements that were sent to a failed node and never started there may add up to
     max-surge more. The record cannot tell those apart, so the hard ceiling is checked and the
     writes above desired + max-surge are counted (`beyond_serving_surge`) for the figures;
  2. it writes no unguarded Deployment (one without replica-guard.io/enabled=true), except the
     opt-out clean-up that only removes the operator's own annotations;
  3. with leader election, every write it sends (carried out or rejected: it left the replica
     either way) comes from the replica holding the Lease when the write reached the API server
     (`received`, before any injected delay), before the lease it last renewed could have run
     out. The Lease's own writes in the record give the holder timeline; a replica is known by
     the identity in its User-Agent ("replica-guard/V (ID)").

A write the API server held (a stall, latency) after it arrived while its replica led is not a
violation, but it is the window no client-side check closes: such writes are counted --
`landed_after_lease` (done after its sender's lease ran out) and `landed_after_takeover` (done
after another replica took the Lease) -- for the figures.

Writes the simulated cluster makes directly (kubelets, controllers) are not API requests and
are not in the record."""
import bisect
import math
import re
from dataclasses import dataclass, field

MANAGER = "replica-guard"
ENABLED = "replica-guard.io/enabled"
DESIRED = "replica-guard.io/desired-replicas"
MAX_SURGE = "replica-guard.io/max-surge"
OWN_PREFIX = "replica-guard.io/"

_IDENTITY = re.compile(r"\(([^()]*)\)\s*$")


def identity(user_agent):
    """The replica identity at the end of a User-Agent ("replica-guard/0.4.0 (host_123)"), or ""."""
    found = _IDENTITY.search(user_agent or "")
    return found.group(1) if found else ""


def resolve_surge(text, desired):
    """A max-surge annotation ("2" or "25%", rounded up like a Deployment's maxSurge) against
    `desired`; None when it is not one."""
    text = (text or "").strip()
    try:
        if text.endswith("%"):
            return math.ceil(desired * int(text[:-1]) / 100)
        return int(text)
    except ValueError:
        return None


@dataclass
class Report:
    writes: int = 0            # entries read
    operator_writes: int = 0   # of those, by the operator's field manager
    deployment_writes: int = 0  # operator writes that set a Deployment's spec.replicas, checked
    lease_writes: int = 0
    leader_changes: int = 0  # Lease writes that named another holder than the one before
    landed_after_lease: int = 0     # sent while leading, done after the lease ran out
    landed_after_takeover: int = 0  # ... done after another replica took the Lease
    beyond_serving_surge: int = 0  # writes above desired + max-surge (never-started replacements)
    violations: list = field(default_factory=list)

    def summary(self):
        return (f"{self.writes} writes recorded, {self.operator_writes} by {MANAGER} "
                f"({self.deployment_writes} Deployment writes checked against their bounds, "
                f"{self.lease_writes} Lease writes, {self.leader_changes} changes of holder; {self.beyond_serving_surge} above desired + max-surge "
                f"for never-started replacements; held by the server past the sender's lease: "
                f"{self.landed_after_lease}, past a takeover: {self.landed_after_takeover}), "
                f"violations: {len(self.violations)}")


def _ok(entry):
    return 200 <= entry.get("code", 0) < 300


def _is_lease(entry, lease):
    """The election's own writes (a rejected create names no object: its path is the collection)."""
    return (lease is not None and entry.get("group") == "coordination.k8s.io"
            and entry.get("resource") == "leases" and entry.get("namespace") == lease[0]
            and entry.get("name") in ("", lease[1]))


def _check_holder(entry, where, timeline, times, report):
    who = identity(entry.get("userAgent"))
    arrived = entry.get("received") or entry["time"]
    at = bisect.bisect_right(times, arrived) - 1
    holder, until = (timeline[at][1], timeline[at][2]) if at >= 0 else ("", 0.0)
    if who != holder:
        report.violations.append(f"{where}: the Lease was held by {holder or 'no one'!r}")
        return
    if arrived > until:
        report.violations.append(f"{where}: its lease had run out {arrived - until:.3f}s before")
        return
    if entry["time"] > until:
        report.landed_after_lease += 1
    later = timeline[at + 1:bisect.bisect_right(times, entry["time"])]
    if any(other != who for _, other, _ in later):
        report.landed_after_takeover += 1


def check(writes, default_max_surge="25%", lease=("default", "replica-guard")):
    """Checks `writes` (the "writes" of GET /sim/writes, in any order). `default_max_surge` is
    the operator's --default-max-surge; `lease` is (namespace, name) of the leader-election
    Lease, or None when the operator runs without leader election (no holder check)."""
    report = Report()
    ordered = sorted(writes, key=lambda e: e["sequence"])
    # The holder timeline: (when the Lease write was done, holder, until when it holds).
    timeline, holder = [], ""
    for entry in ordered:
        if _is_lease(entry, lease) and _ok(entry) and entry.get("name"):
            report.lease_writes += 1
            report.leader_changes += entry.get("holderIdentity", "") != holder
            holder = entry.get("holderIdentity", "")
            timeline.append((entry["time"], holder, entry["time"] + entry.get("leaseDurationSeconds", 0)))
    times = [t for t, _, _ in timeline]
    replicas = {}  # namespace/name -> spec.replicas after the last recorded write
    for entry in ordered:
        report.writes += 1
        key = f"{entry.get('namespace', '')}/{entry.get('name', '')}"
        is_lease = _is_lease(entry, lease)
        is_deployment = entry.get("group") == "apps" and entry.get("resource") == "deployments"
        previous = replicas.get(key)
        if is_deployment and _ok(entry) and "replicas" in entry:
            replicas[key] = entry["replicas"]
        if entry.get("fieldManager") != MANAGER or entry.get("group") == "authorization.k8s.io":
            continue
        report.operator_writes += 1
        where = (f"#{entry['sequence']} {entry.get('verb')} {entry.get('resource')}"
                 f"{'/' + entry['subresource'] if entry.get('subresource') else ''} {key} "
                 f"by {identity(entry.get('userAgent')) or entry.get('userAgent')!r} "
                 f"(code {entry.get('code')})")
        if lease is not None and not is_lease:
            _check_holder(entry, where, timeline, times, report)
        if not (is_deployment and _ok(entry) and "replicas" in entry):
            continue
        annotations = entry.get("annotations", {})
        if annotations.get(ENABLED) != "true":
            cleanup = (entry["replicas"] == previous
                       and not any(k.startswith(OWN_PREFIX) for k in annotations))
            if not cleanup:
                report.violations.append(f"{where}: the Deployment is not guarded ({ENABLED} is "
                                         f"{annotations.get(ENABLED)!r})")
            continue
        report.deployment_writes += 1
        try:
            desired = int(annotations[DESIRED])
        except (KeyError, ValueError):
            report.violations.append(f"{where}: no valid {DESIRED} after the write")
            continue
        surge = resolve_surge(annotations.get(MAX_SURGE, default_max_surge), desired)
        if surge is None:
            surge = resolve_surge(default_max_surge, desired)
        if not desired <= entry["replicas"] <= desired + 2 * surge:
            report.violations.append(
                f"{where}: spec.replicas {entry['replicas']} outside [{desired}, {desired + 2 * surge}]")
        elif entry["replicas"] > desired + surge:
            report.beyond_serving_surge += 1
    return report
