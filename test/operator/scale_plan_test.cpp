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
    CHECK(annotation(plan, kAppliedAnnotation) == "5");
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
  CHECK(annotation(done, kAppliedAnnotation) == "4");
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

TEST_CASE("a scale records the replicas it replaces, and clears them once it shows") {
  PlanMemory memory;
  const ScalePlan up = plan_scale(managed(4, 1), {}, {}, memory, kT0);
  REQUIRE(up.scale_to == 5);
  CHECK(annotation(up, kAppliedAnnotation) == "5");
  CHECK(annotation(up, kReplacedAnnotation) == "4");

  DeploymentFacts done = managed(5, 1);
  done.replaced_annotation = "4";
  const ScalePlan confirm = plan_scale(done, {}, {}, memory, kT0 + 1s);
  CHECK_FALSE(confirm.scale_to);
  CHECK(confirm.events.empty());
  CHECK(annotation(confirm, kReplacedAnnotation) == "<removed>");
  CHECK(annotation(confirm, kAppliedAnnotation) == "5");
  CHECK_FALSE(annotation(confirm, kDesiredAnnotation));

  // Reconciling the cleaned-up Deployment again writes nothing.
  const ScalePlan again = plan_scale(managed(5, 1), {}, {}, memory, kT0 + 2s);
  CHECK(again.annotations.empty());
  CHECK_FALSE(again.scale_to);
}

TEST_CASE("the operator's own unfinished scale is finished, not adopted as a person's change") {
  // The annotations of a scale 4 -> 5 were written, the scale was not (it failed, or the operator
  // died in between): spec.replicas 4, applied 5, replaced 4. A fresh operator has no memory.
  DeploymentFacts half_done = managed(4, 1);
  half_done.applied_annotation = "5";
  half_done.replaced_annotation = "4";
  PlanMemory fresh;
  const ScalePlan retry = plan_scale(half_done, {}, {}, fresh, kT0);
  CHECK(retry.scale_to == 5);
  CHECK(annotation(retry, kReplacedAnnotation) == "4");
  CHECK_FALSE(annotation(retry, kDesiredAnnotation));
  for (const auto& event : retry.events) CHECK(event.reason != "DesiredReplicasAdopted");

  SUBCASE("an unfinished scale-down is finished without waiting the delay again") {
    DeploymentFacts down = managed(6, 0);  // desired 4: scaling 6 -> 4 was decided
    down.applied_annotation = "4";
    down.replaced_annotation = "6";
    PlanMemory memory;
    const ScalePlan plan = plan_scale(down, {}, {}, memory, kT0);
    CHECK(plan.scale_to == 4);
    CHECK(plan.direction == ScaleDirection::kDown);
    CHECK_FALSE(plan.requeue_after);
  }
  SUBCASE("an unfinished scale no longer wanted only sets the annotations straight") {
    DeploymentFacts healed = half_done;
    healed.replicas.stranded = 0;  // the node came back before the scale was finished
    PlanMemory memory;
    const ScalePlan plan = plan_scale(healed, {}, {}, memory, kT0);
    CHECK_FALSE(plan.scale_to);
    CHECK(annotation(plan, kAppliedAnnotation) == "4");
    CHECK(annotation(plan, kReplacedAnnotation) == "<removed>");
    CHECK_FALSE(annotation(plan, kDesiredAnnotation));
    CHECK(plan.events.empty());
  }
  SUBCASE("any other spec.replicas is a person's, even while replaced-replicas is there") {
    DeploymentFacts person = half_done;
    person.spec_replicas = 7;
    PlanMemory memory;
    const ScalePlan plan = plan_scale(person, {}, {}, memory, kT0);
    CHECK_FALSE(plan.scale_to);
    CHECK(annotation(plan, kDesiredAnnotation) == "7");
    CHECK(annotation(plan, kAppliedAnnotation) == "7");
    CHECK(annotation(plan, kReplacedAnnotation) == "<removed>");
    REQUIRE(plan.events.size() == 1);
    CHECK(plan.events[0].reason == "DesiredReplicasAdopted");
  }
  SUBCASE("once cleared, a person setting the old count back is adopted") {
    DeploymentFacts person = managed(5, 1);  // scaled 4 -> 5, replaced-replicas removed
    person.spec_replicas = 4;                // kubectl scale --replicas=4
    PlanMemory memory;
    const ScalePlan plan = plan_scale(person, {}, {}, memory, kT0);
    CHECK_FALSE(plan.scale_to);
    CHECK(annotation(plan, kDesiredAnnotation) == "4");
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

TEST_CASE("an HPA-targeted Deployment gets one Warning, no write, and is guarded again after") {
  PlanMemory memory;
  DeploymentFacts surged = managed(5, 0);  // a surge no longer needed: its scale-down is pending
  CHECK_FALSE(plan_scale(surged, {}, {}, memory, kT0).scale_to);
  REQUIRE(memory.surge_unneeded_since);

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
