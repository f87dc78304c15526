// The replica-guard policy for one Deployment: every rule of the README's "Policy" section.
#include <doctest/doctest.h>

#include "operator/scale_plan.hpp"

using namespace rg::op;
using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

namespace {

const Steady::time_point kT0 = Steady::time_point(100'000s);

// An opted-in Deployment of 4 desired replicas that the operator already manages.
DeploymentFacts managed(std::int32_t spec, std::int32_t stranded) {
  DeploymentFacts d;
  d.enabled = true;
  d.spec_replicas = spec;
  d.desired_annotation = "4";
  d.applied_annotation = std::to_string(spec);
  d.replicas.stranded = stranded;
  d.replicas.serving = 4 - stranded;
  if (stranded > 0) d.replicas.failed_nodes = {"node-2"};
  return d;
}

// A managed Deployment one above desired with nothing stranded, planned once at kT0 with the
// default policy: its surge is no longer needed and its scale-down is pending in `memory`.
DeploymentFacts with_pending_scale_down(PlanMemory& memory) {
  DeploymentFacts surged = managed(5, 0);
  CHECK_FALSE(plan_scale(surged, {}, {}, memory, kT0).scale_to);
  REQUIRE(memory.surge_unneeded_since);
  return surged;
}

std::optional<std::string> annotation(const ScalePlan& plan, std::string_view key) {
  for (const auto& [k, v] : plan.annotations) {
    if (k == key) return v.value_or("<removed>");
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("first sight records spec.replicas as desired before changing anything") {
  DeploymentFacts d;
  d.enabled = true;
  d.spec_replicas = 3;
  d.replicas.stranded = 2;  // even with stranded pods: record first
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK_FALSE(plan.scale_to);
  CHECK(annotation(plan, kDesiredAnnotation) == "3");
  CHECK(annotation(plan, kAppliedAnnotation) == "3");
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].reason == "DesiredReplicasRecorded");
}

TEST_CASE("stranded pods scale the Deployment up, bounded by max-surge") {
  PlanMemory memory;
  SUBCASE("within the bound") {
    const ScalePlan plan = plan_scale(managed(4, 1), {}, {}, memory, kT0);
    CHECK(plan.scale_to == 5);
    CHECK(plan.direction == ScaleDirection::kUp);
    CHECK(plan.annotations.empty());  // the record is the next reconcile's
    REQUIRE(plan.events.size() == 1);
    CHECK(plan.events[0].reason == "ScaledUpForStrandedPods");
    CHECK(plan.events[0].message == "scaling 4 -> 5: 1 pods stranded on failed nodes node-2");
  }
  SUBCASE("default 25% of 4 is 1") {
    const ScalePlan plan = plan_scale(managed(4, 3), {}, {}, memory, kT0);
    CHECK(plan.scale_to == 5);
  }
  SUBCASE("annotation max-surge") {
    DeploymentFacts d = managed(4, 3);
    d.max_surge_annotation = "2";
    CHECK(plan_scale(d, {}, {}, memory, kT0).scale_to == 6);
    d.max_surge_annotation = "100%";
    CHECK(plan_scale(d, {}, {}, memory, kT0).scale_to == 7);
  }
  SUBCASE("an invalid max-surge warns and falls back to the default") {
    DeploymentFacts d = managed(4, 3);
    d.max_surge_annotation = "lots";
    const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
    CHECK(plan.scale_to == 5);
    CHECK(plan.events.front().warning);
    CHECK(plan.events.front().reason == "InvalidAnnotation");
  }
}

TEST_CASE("reconciling again changes nothing") {
  PlanMemory memory;
  const ScalePlan first = plan_scale(managed(4, 1), {}, {}, memory, kT0);
  REQUIRE(first.scale_to == 5);
  const ScalePlan second = plan_scale(managed(5, 1), {}, {}, memory, kT0 + 1s);
  CHECK_FALSE(second.scale_to);
  CHECK(second.annotations.empty());
  CHECK(second.events.empty());
}

TEST_CASE("a rolling update alone never surges") {
  DeploymentFacts d = managed(4, 0);
  d.replicas.serving = 2;  // new pods not Ready yet on healthy nodes
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK_FALSE(plan.scale_to);
  CHECK(plan.events.empty());
}

TEST_CASE("the surge is removed only after the scale-down delay") {
  PlanMemory memory;
  PolicyConfig config;
  config.scale_down_delay = 60s;
  const ScalePlan held = plan_scale(managed(5, 0), {}, config, memory, kT0);
  CHECK_FALSE(held.scale_to);
  CHECK(held.requeue_after == 60s);
  const ScalePlan still = plan_scale(managed(5, 0), {}, config, memory, kT0 + 45s);
  CHECK_FALSE(still.scale_to);
  CHECK(still.requeue_after == 15s);
  const ScalePlan done = plan_scale(managed(5, 0), {}, config, memory, kT0 + 60s);
  CHECK(done.scale_to == 4);
  CHECK(done.direction == ScaleDirection::kDown);
  CHECK(done.events.at(0).reason == "ScaledDownAfterRecovery");
  CHECK(done.annotations.empty());

  SUBCASE("a scale-down that failed is retried at once, not after another delay") {
    const ScalePlan retry = plan_scale(managed(5, 0), {}, config, memory, kT0 + 61s);
    CHECK(retry.scale_to == 4);
    CHECK_FALSE(retry.requeue_after);
  }
  SUBCASE("once it shows, the next surge waits a whole delay again") {
    CHECK_FALSE(plan_scale(managed(4, 0), {}, config, memory, kT0 + 62s).scale_to);
    CHECK_FALSE(memory.surge_unneeded_since);
  }
}

TEST_CASE("a new failure during the delay restarts it") {
  PlanMemory memory;
  PolicyConfig config;
  config.scale_down_delay = 60s;
  CHECK_FALSE(plan_scale(managed(5, 0), {}, config, memory, kT0).scale_to);
  CHECK_FALSE(plan_scale(managed(5, 1), {}, config, memory, kT0 + 30s).scale_to);  // needed again
  const ScalePlan later = plan_scale(managed(5, 0), {}, config, memory, kT0 + 70s);
  CHECK_FALSE(later.scale_to);
  CHECK(later.requeue_after == 60s);
}

TEST_CASE("never above desired + max-surge: a lowered max-surge applies at once") {
  DeploymentFacts d = managed(7, 3);
  d.max_surge_annotation = "1";
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK(plan.scale_to == 5);
  CHECK(plan.direction == ScaleDirection::kDown);
}

TEST_CASE("a replacement sent to the dead node is replaced too, within max-surge more") {
  // desired 4, max-surge 1: the first replacement landed on the dead node (still Ready, the
  // least loaded) and never started. Without replacing it the Deployment stays one short.
  PlanMemory memory;
  DeploymentFacts d = managed(5, 2);
  d.replicas.stranded_unstarted = 1;
  d.replicas.serving = 3;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK(plan.scale_to == 6);  // live pods: 6 - 2 stranded = 4, never more than desired + 1
  SUBCASE("the second one lands there too: no further (at most max-surge more)") {
    DeploymentFacts again = managed(6, 3);
    again.replicas.stranded_unstarted = 2;
    CHECK_FALSE(plan_scale(again, {}, {}, memory, kT0).scale_to);
  }
  SUBCASE("the node back: above desired + max-surge at once, then the rest after the delay") {
    DeploymentFacts back = managed(6, 0);
    back.replicas.serving = 6;  // the replacement started there: six serve
    const ScalePlan down = plan_scale(back, {}, {}, memory, kT0);
    CHECK(down.scale_to == 5);
    CHECK(down.direction == ScaleDirection::kDown);
    REQUIRE(down.events.size() == 1);
    CHECK(down.events[0].reason == "ScaledDownToSurgeBound");
  }
  SUBCASE("the replacement no longer judged stranded but not serving: held, then the delay") {
    // Renewals stalled everywhere, so the dead node's Lease silence is no evidence for a while:
    // only the stranded pod of another node counts. The replacement still cannot serve.
    DeploymentFacts unsure = managed(6, 1);
    unsure.replicas.serving = 4;
    const ScalePlan held = plan_scale(unsure, {}, {}, memory, kT0 + 1s);
    CHECK_FALSE(held.scale_to);
    CHECK(held.requeue_after == 60s);
    SUBCASE("the evidence back within the delay: no write at all") {
      DeploymentFacts sure = managed(6, 2);
      sure.replicas.stranded_unstarted = 1;
      CHECK_FALSE(plan_scale(sure, {}, {}, memory, kT0 + 20s).scale_to);
      const ScalePlan again = plan_scale(unsure, {}, {}, memory, kT0 + 70s);
      CHECK_FALSE(again.scale_to);  // the delay restarted at the withdrawal after the return
      CHECK(again.requeue_after == 60s);
    }
    SUBCASE("still unneeded after the delay: down to the target") {
      const ScalePlan down = plan_scale(unsure, {}, {}, memory, kT0 + 61s);
      CHECK(down.scale_to == 5);
      REQUIRE(down.events.size() == 1);
      CHECK(down.events[0].reason == "ScaledDownAfterRecovery");
    }
  }
  SUBCASE("opted out: the held room is forgotten, so opting in again starts afresh") {
    CHECK(memory.unstarted_room == 1);
    CHECK(memory.last_desired == 4);
    DeploymentFacts out = managed(6, 2);
    out.enabled = false;
    CHECK(plan_scale(out, {}, {}, memory, kT0 + 1s).scale_to == 4);
    CHECK(memory.unstarted_room == 0);
    CHECK_FALSE(memory.last_desired);
  }
  SUBCASE("--max-total-surge still holds") {
    PolicyConfig config;
    config.max_total_surge = 1;
    DeploymentFacts capped = managed(5, 2);
    capped.replicas.stranded_unstarted = 1;
    CHECK_FALSE(plan_scale(capped, {}, config, memory, kT0).scale_to);
  }
}

TEST_CASE("the Event names the suspect node and the evidence") {
  PlanMemory memory;
  DeploymentFacts d = managed(4, 1);
  d.replicas.evidence = {
      "node-2: no Lease renewal observed for 25s while 3 of 3 other nodes renewed"};
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].message ==
        "scaling 4 -> 5: 1 pods stranded on failed nodes node-2 (node-2: no Lease renewal "
        "observed for 25s while 3 of 3 other nodes renewed)");
}

TEST_CASE("a person's spec.replicas is adopted as the new desired") {
  DeploymentFacts d = managed(5, 1);
  d.spec_replicas = 8;  // kubectl scale --replicas=8; applied says 5
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK_FALSE(plan.scale_to);
  CHECK(annotation(plan, kDesiredAnnotation) == "8");
  CHECK(annotation(plan, kAppliedAnnotation) == "8");
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].reason == "DesiredReplicasAdopted");
  CHECK(plan.events[0].message.find("from 5 to 8") != std::string::npos);
  CHECK(plan.requeue_after == 0ms);
}

TEST_CASE("a scale is recorded in applied-replicas by the reconcile its echo brings") {
  PlanMemory memory;
  const ScalePlan up = plan_scale(managed(4, 1), {}, {}, memory, kT0);
  REQUIRE(up.scale_to == 5);
  CHECK(up.annotations.empty());

  // The echo: spec.replicas 5, owned by the operator's field manager; applied still says 4.
  DeploymentFacts done = managed(5, 1);
  done.applied_annotation = "4";
  done.replicas_owned = true;
  const ScalePlan record = plan_scale(done, {}, {}, memory, kT0 + 1s);
  CHECK_FALSE(record.scale_to);
  CHECK(record.events.empty());
  CHECK(annotation(record, kAppliedAnnotation) == "5");
  CHECK_FALSE(annotation(record, kDesiredAnnotation));

  // Reconciling the recorded Deployment again writes nothing.
  DeploymentFacts recorded = managed(5, 1);
  recorded.replicas_owned = true;
  const ScalePlan again = plan_scale(recorded, {}, {}, memory, kT0 + 2s);
  CHECK(again.annotations.empty());
  CHECK_FALSE(again.scale_to);
}

TEST_CASE("the operator's own unrecorded scale is recorded, not adopted as a person's change") {
  // The operator scaled 4 -> 5 and died before recording it: spec.replicas 5, applied 4, and
  // managedFields say the operator's field manager owns spec.replicas. A fresh operator has no
  // memory.
  DeploymentFacts unrecorded = managed(5, 1);
  unrecorded.applied_annotation = "4";
  unrecorded.replicas_owned = true;
  PlanMemory fresh;
  const ScalePlan plan = plan_scale(unrecorded, {}, {}, fresh, kT0);
  CHECK_FALSE(plan.scale_to);
  CHECK(annotation(plan, kAppliedAnnotation) == "5");
  CHECK_FALSE(annotation(plan, kDesiredAnnotation));
  CHECK(plan.events.empty());

  SUBCASE("no longer wanted: recorded, and scaled back after the delay") {
    DeploymentFacts healed = unrecorded;
    healed.replicas.stranded = 0;  // the node came back meanwhile
    PlanMemory memory;
    const ScalePlan held = plan_scale(healed, {}, {}, memory, kT0);
    CHECK_FALSE(held.scale_to);
    CHECK(annotation(held, kAppliedAnnotation) == "5");
    CHECK(held.requeue_after == 60s);
    CHECK(plan_scale(healed, {}, {}, memory, kT0 + 60s).scale_to == 4);
  }
  SUBCASE("the same count, owned by someone else, is a person's and adopted") {
    DeploymentFacts person = unrecorded;
    person.replicas_owned = false;  // kubectl scale --replicas=5 took spec.replicas over
    PlanMemory memory;
    const ScalePlan adopted = plan_scale(person, {}, {}, memory, kT0);
    CHECK_FALSE(adopted.scale_to);
    CHECK(annotation(adopted, kDesiredAnnotation) == "5");
    CHECK(annotation(adopted, kAppliedAnnotation) == "5");
    REQUIRE(adopted.events.size() == 1);
    CHECK(adopted.events[0].reason == "DesiredReplicasAdopted");
  }
  SUBCASE("once recorded, a person setting the old count back is adopted") {
    DeploymentFacts person = managed(5, 1);  // scaled 4 -> 5 and recorded
    person.spec_replicas = 4;                // kubectl scale --replicas=4
    PlanMemory memory;
    const ScalePlan adopted = plan_scale(person, {}, {}, memory, kT0);
    CHECK_FALSE(adopted.scale_to);
    CHECK(annotation(adopted, kDesiredAnnotation) == "4");
  }
}

TEST_CASE("a person's desired-replicas annotation applies at once") {
  PlanMemory memory;
  CHECK_FALSE(plan_scale(managed(4, 0), {}, {}, memory, kT0).scale_to);
  DeploymentFacts d = managed(4, 0);
  d.desired_annotation = "2";
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0 + 1s);
  CHECK(plan.scale_to == 2);
  CHECK(plan.events.at(0).reason == "DesiredReplicasChanged");
}

TEST_CASE("paused, deleting and HPA-targeted Deployments are left alone") {
  PlanMemory memory;
  DeploymentFacts paused = managed(4, 2);
  paused.paused = true;
  CHECK_FALSE(plan_scale(paused, {}, {}, memory, kT0).scale_to);

  DeploymentFacts deleting = managed(4, 2);
  deleting.deleting = true;
  const ScalePlan gone = plan_scale(deleting, {}, {}, memory, kT0);
  CHECK_FALSE(gone.scale_to);
  CHECK(gone.events.empty());

  DeploymentFacts hpa = managed(4, 2);
  hpa.hpa_name = "web";
  const ScalePlan warned = plan_scale(hpa, {}, {}, memory, kT0);
  CHECK_FALSE(warned.scale_to);
  REQUIRE(warned.events.size() == 1);
  CHECK(warned.events[0].warning);
  CHECK(warned.events[0].reason == "HorizontalPodAutoscalerPresent");
}

TEST_CASE("a scale-down pending when the Deployment is paused waits a whole delay after it") {
  PlanMemory memory;
  const DeploymentFacts surged = with_pending_scale_down(memory);
  DeploymentFacts paused = surged;
  paused.paused = true;
  const ScalePlan held = plan_scale(paused, {}, {}, memory, kT0 + 90s);
  CHECK_FALSE(held.scale_to);
  CHECK(held.events.empty());
  const ScalePlan resumed = plan_scale(surged, {}, {}, memory, kT0 + 100s);
  CHECK_FALSE(resumed.scale_to);  // the delay elapsed before the pause counts no more
  CHECK(resumed.requeue_after == 60s);
  CHECK(plan_scale(surged, {}, {}, memory, kT0 + 160s).scale_to == 4);
}

TEST_CASE("an HPA-targeted Deployment gets one Warning, no write, and is guarded again after") {
  PlanMemory memory;
  const DeploymentFacts surged = with_pending_scale_down(memory);

  DeploymentFacts hpa = surged;
  hpa.hpa_name = "web";
  hpa.replicas.stranded = 2;  // stranded pods do not make the operator write either
  const ScalePlan warned = plan_scale(hpa, {}, {}, memory, kT0 + 90s);
  CHECK_FALSE(warned.scale_to);
  CHECK(warned.annotations.empty());
  CHECK_FALSE(warned.requeue_after);
  CHECK_FALSE(warned.managed);
  REQUIRE(warned.events.size() == 1);
  CHECK(warned.events[0].warning);
  CHECK(warned.events[0].reason == "HorizontalPodAutoscalerPresent");
  CHECK(warned.events[0].message.find("\"web\"") != std::string::npos);

  const ScalePlan again = plan_scale(hpa, {}, {}, memory, kT0 + 100s);
  CHECK_FALSE(again.scale_to);
  CHECK(again.annotations.empty());
  CHECK(again.events.empty());  // said once, not at every reconcile

  hpa.hpa_name = "web-v2";  // another autoscaler: said again
  CHECK(plan_scale(hpa, {}, {}, memory, kT0 + 110s).events.size() == 1);

  SUBCASE("the HPA gone: the pending scale-down starts its delay afresh") {
    const ScalePlan back = plan_scale(surged, {}, {}, memory, kT0 + 120s);
    REQUIRE_FALSE(back.events.empty());
    CHECK(back.events[0].reason == "HorizontalPodAutoscalerGone");
    CHECK_FALSE(back.scale_to);
    CHECK(back.requeue_after == 60s);
    CHECK(plan_scale(surged, {}, {}, memory, kT0 + 180s).scale_to == 4);
  }
  SUBCASE("the HPA gone after it changed spec.replicas: its count is adopted") {
    DeploymentFacts scaled = surged;
    scaled.spec_replicas = 8;
    const ScalePlan back = plan_scale(scaled, {}, {}, memory, kT0 + 120s);
    CHECK_FALSE(back.scale_to);
    CHECK(annotation(back, kDesiredAnnotation) == "8");
    REQUIRE(back.events.size() == 2);
    CHECK(back.events[0].reason == "HorizontalPodAutoscalerGone");
    CHECK(back.events[1].reason == "DesiredReplicasAdopted");
  }
  SUBCASE("first sight under an HPA records nothing") {
    DeploymentFacts fresh;
    fresh.enabled = true;
    fresh.spec_replicas = 3;
    fresh.hpa_name = "web";
    PlanMemory empty;
    CHECK(plan_scale(fresh, {}, {}, empty, kT0).annotations.empty());
  }
}

TEST_CASE("opting out under an HPA removes the annotations and leaves the replicas to it") {
  DeploymentFacts d = managed(5, 1);
  d.enabled = false;
  d.hpa_name = "web";
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK_FALSE(plan.scale_to);
  CHECK(annotation(plan, kDesiredAnnotation) == "<removed>");
  CHECK(annotation(plan, kAppliedAnnotation) == "<removed>");
}

TEST_CASE("a likely partition suppresses new surges but keeps existing ones") {
  PlanMemory memory;
  ClusterFacts partition;
  partition.surge_suppressed = true;
  const ScalePlan none = plan_scale(managed(4, 2), partition, {}, memory, kT0);
  CHECK_FALSE(none.scale_to);
  CHECK(none.events.at(0).reason == "SurgeSuppressed");
  DeploymentFacts surged = managed(5, 2);
  surged.max_surge_annotation = "2";
  const ScalePlan held = plan_scale(surged, partition, {}, memory, kT0);
  CHECK_FALSE(held.scale_to);
}

TEST_CASE("--max-total-surge caps the surge across the cluster") {
  PlanMemory memory;
  PolicyConfig config;
  config.max_total_surge = 3;
  ClusterFacts cluster;
  cluster.surge_elsewhere = 2;
  DeploymentFacts d = managed(4, 3);
  d.max_surge_annotation = "3";
  const ScalePlan plan = plan_scale(d, cluster, config, memory, kT0);
  CHECK(plan.scale_to == 5);
  cluster.surge_elsewhere = 3;
  CHECK_FALSE(plan_scale(d, cluster, config, memory, kT0).scale_to);
}

TEST_CASE("opting out restores desired replicas and removes the annotations") {
  DeploymentFacts d = managed(5, 1);
  d.enabled = false;
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK(plan.scale_to == 4);
  CHECK(annotation(plan, kDesiredAnnotation) == "<removed>");
  CHECK(annotation(plan, kAppliedAnnotation) == "<removed>");
  CHECK(plan.events.at(0).reason == "OptedOut");

  SUBCASE("a count someone else set is kept") {
    d.spec_replicas = 9;
    const ScalePlan keep = plan_scale(d, {}, {}, memory, kT0);
    CHECK_FALSE(keep.scale_to);
    CHECK(annotation(keep, kAppliedAnnotation) == "<removed>");
  }
  SUBCASE("the operator's own unrecorded scale is undone") {
    d.spec_replicas = 6;
    d.replicas_owned = true;  // applied still says 5
    CHECK(plan_scale(d, {}, {}, memory, kT0).scale_to == 4);
  }
  SUBCASE("never managed: nothing to do") {
    DeploymentFacts plain;
    CHECK(plan_scale(plain, {}, {}, memory, kT0).annotations.empty());
  }
}

TEST_CASE("an invalid desired-replicas annotation is reported, not acted on") {
  DeploymentFacts d = managed(4, 2);
  d.desired_annotation = "four";
  PlanMemory memory;
  const ScalePlan plan = plan_scale(d, {}, {}, memory, kT0);
  CHECK_FALSE(plan.scale_to);
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].warning);
  CHECK(plan.events[0].message.find("\"four\" is not a replica count") != std::string::npos);
}

TEST_CASE("pods still within the grace ask for a requeue when they would be stranded") {
  DeploymentFacts d = managed(4, 0);
  d.replicas.next_stranded_in = 12s;
  PlanMemory memory;
  CHECK(plan_scale(d, {}, {}, memory, kT0).requeue_after == 12s);
}
