// The replica-guard policy (see scale_plan.hpp and the README's "Policy" section).
#include "operator/scale_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

namespace rg::op {

namespace {

using std::chrono::milliseconds;

std::string num(std::int32_t n) { return std::to_string(n); }

// The replica count an annotation holds, or -1 when it is absent or not a count.
std::int32_t annotated_count(const std::optional<std::string>& text) {
  return text ? parse_replicas(*text).value_or(-1) : -1;
}

void requeue_within(ScalePlan& plan, milliseconds after) {
  if (!plan.requeue_after || after < *plan.requeue_after) plan.requeue_after = after;
}

// Opted out (or never in) while still carrying the operator's annotations: give the Deployment
// back its desired replicas, if the current count is the operator's doing, and clean up.
// With a HorizontalPodAutoscaler the replicas are the autoscaler's: only the annotations go.
ScalePlan plan_opt_out(const DeploymentFacts& d) {
  ScalePlan plan;
  if (!d.desired_annotation && !d.applied_annotation) return plan;
  const std::int32_t desired = annotated_count(d.desired_annotation);
  const bool operators_count =
      annotated_count(d.applied_annotation) == d.spec_replicas || d.replicas_owned;
  plan.annotations = {{std::string(kDesiredAnnotation), std::nullopt},
                      {std::string(kAppliedAnnotation), std::nullopt}};
  if (desired >= 0 && operators_count && d.spec_replicas != desired && !d.paused && !d.hpa_name) {
    plan.scale_to = desired;
    plan.direction = desired > d.spec_replicas ? ScaleDirection::kUp : ScaleDirection::kDown;
  }
  plan.events.push_back({false, "OptedOut",
                         plan.scale_to
                             ? "replica-guard disabled: restoring " + num(*plan.scale_to) +
                                   " replicas and removing its annotations"
                             : "replica-guard disabled: removing its annotations"});
  return plan;
}

// Whether to start or hold a scale-down from `current` to `target`. The time the surge became
// unneeded is kept until a reconcile finds no surge left to remove, so a scale-down that failed is
// retried at once rather than after another delay.
void plan_scale_down(ScalePlan& plan, std::int32_t current, std::int32_t target,
                     std::int32_t ceiling, const PolicyConfig& config, PlanMemory& memory,
                     std::chrono::steady_clock::time_point now) {
  if (current > ceiling) {  // above the surge bound (desired or max-surge lowered): at once
    plan.scale_to = std::max(target, ceiling);
    plan.events.push_back(
        {false, "ScaledDownToSurgeBound",
         fmt::format("scaling {} -> {}: above desired + max-surge", current, *plan.scale_to)});
  } else {
    if (!memory.surge_unneeded_since) memory.surge_unneeded_since = now;
    const auto unneeded_for =
        std::chrono::duration_cast<milliseconds>(now - *memory.surge_unneeded_since);
    if (unneeded_for < config.scale_down_delay) {
      requeue_within(plan, config.scale_down_delay - unneeded_for);
      return;
    }
    plan.scale_to = target;
    plan.events.push_back(
        {false, "ScaledDownAfterRecovery",
         fmt::format("scaling {} -> {}: the surge has been unneeded for {}s", current, target,
                     std::chrono::duration_cast<std::chrono::seconds>(unneeded_for).count())});
  }
  plan.direction = ScaleDirection::kDown;
}

}  // namespace

ScalePlan plan_scale(const DeploymentFacts& d, const ClusterFacts& cluster,
                     const PolicyConfig& config, PlanMemory& memory,
                     std::chrono::steady_clock::time_point now) {
  if (d.deleting) return {};
  if (!d.enabled) {
    memory = PlanMemory{};  // opting in again starts afresh (first sight)
    return plan_opt_out(d);
  }

  ScalePlan plan;
  if (d.hpa_name) {
    // The autoscaler owns spec.replicas: no write at all, and whatever was pending is dropped.
    if (memory.left_to_hpa != d.hpa_name) {
      plan.events.push_back({true, "HorizontalPodAutoscalerPresent",
                             "left alone: HorizontalPodAutoscaler \"" + *d.hpa_name +
                                 "\" also writes spec.replicas, and two writers would fight"});
    }
    memory = PlanMemory{};
    memory.left_to_hpa = d.hpa_name;
    return plan;
  }
  if (memory.left_to_hpa) {
    plan.events.push_back({false, "HorizontalPodAutoscalerGone",
                           "HorizontalPodAutoscaler \"" + *memory.left_to_hpa +
                               "\" no longer targets it: guarding the replicas again"});
    memory.left_to_hpa.reset();
  }
  if (d.paused) {
    // Nothing is written while paused, and what happened meanwhile was not acted on: a pending
    // scale-down waits a whole delay after the resume, as after an HPA hand-off. The room held
    // for never-started replacements stays (they still cannot serve).
    memory.surge_unneeded_since.reset();
    return plan;
  }

  // First sight: record the count the user runs today as the desired count, before anything else.
  if (!d.desired_annotation) {
    plan.annotations = {{std::string(kDesiredAnnotation), num(d.spec_replicas)},
                        {std::string(kAppliedAnnotation), num(d.spec_replicas)}};
    plan.events.push_back(
        {false, "DesiredReplicasRecorded",
         "recorded spec.replicas " + num(d.spec_replicas) + " as the desired replicas"});
    return plan;
  }
  const auto annotated_desired = parse_replicas(*d.desired_annotation);
  if (!annotated_desired) {
    plan.events.push_back({true, "InvalidAnnotation",
                           std::string(kDesiredAnnotation) + " \"" + *d.desired_annotation +
                               "\" is not a replica count; set it to a non-negative integer"});
    return plan;
  }
  std::int32_t desired = *annotated_desired;

  // Who set spec.replicas? A scale is two writes: first the scale subresource (the write the
  // Deployment is waiting for), then, in the reconcile its echo brings, a merge patch recording
  // the count in applied-replicas. So, with spec.replicas S:
  //   S == applied                          the operator's own value: nothing to adopt;
  //   the operator's field manager owns     its own scale, not recorded yet (the record is next,
  //   spec.replicas (managedFields)         failed, or the operator died between the writes):
  //                                         record it and plan on;
  //   anything else                         someone else set it (kubectl scale, a GitOps sync):
  //                                         their value is the new desired.
  // An update that changes a field takes its ownership from every other manager, so ownership
  // says who wrote S last.
  const std::int32_t applied = annotated_count(d.applied_annotation);
  const bool recorded = applied == d.spec_replicas;
  if (applied >= 0 && !recorded && !d.replicas_owned) {
    plan.annotations = {{std::string(kDesiredAnnotation), num(d.spec_replicas)},
                        {std::string(kAppliedAnnotation), num(d.spec_replicas)}};
    plan.events.push_back({false, "DesiredReplicasAdopted",
                           fmt::format("spec.replicas was changed from {} to {} by someone else: "
                                       "adopting {} as the desired replicas",
                                       applied, d.spec_replicas, d.spec_replicas)});
    memory.surge_unneeded_since.reset();
    memory.unstarted_room = 0;
    memory.last_desired = d.spec_replicas;
    plan.managed = true;
    plan.desired = d.spec_replicas;
    requeue_within(plan, milliseconds(0));
    return plan;
  }

  IntOrPercent max_surge_spec = config.default_max_surge;
  if (d.max_surge_annotation) {
    try {
      max_surge_spec = IntOrPercent::parse(*d.max_surge_annotation);
    } catch (const std::invalid_argument& e) {
      plan.events.push_back({true, "InvalidAnnotation",
                             std::string(kMaxSurgeAnnotation) + ": " + e.what() +
                                 "; using the default " + config.default_max_surge.to_string()});
    }
  }
  const std::int32_t max_surge = max_surge_spec.resolve(desired);
  const std::int32_t current = d.spec_replicas;
  const std::int32_t current_surge = std::max(0, current - desired);
  plan.managed = true;
  plan.desired = desired;

  // max-surge bounds the extra pods that can serve. A replacement the scheduler put on the dead
  // node (it may still look Ready, and be the least loaded) never starts: it is replaced too, up
  // to max-surge more, so the Deployment is not left short; none of those can serve until the
  // node is back, and then the surge above the bound goes at once. The room made for them is
  // held until then: a replacement no longer judged stranded but not serving either (its node's
  // Lease evidence withdrawn while renewals stall everywhere, or the pod deleted) is not the node
  // back, and scaling down at once there flaps when the evidence returns.
  const std::int32_t unstarted = std::min(d.replicas.stranded_unstarted, max_surge);
  if (d.replicas.serving > desired + max_surge) memory.unstarted_room = 0;
  const std::int32_t room = std::max(unstarted, std::min(memory.unstarted_room, max_surge));
  const std::int32_t ceiling = desired + max_surge + room;
  std::int32_t surge =
      std::min(d.replicas.stranded - d.replicas.stranded_unstarted, max_surge) + unstarted;
  if (surge > current_surge && cluster.surge_suppressed) {
    surge = current_surge;
    plan.events.push_back(
        {true, "SurgeSuppressed",
         fmt::format("{} pods stranded, but too many nodes are unhealthy (a likely "
                     "partition): not scaling up",
                     d.replicas.stranded)});
  }
  if (config.max_total_surge && surge > current_surge) {
    const std::int32_t room =
        std::max(current_surge, *config.max_total_surge - cluster.surge_elsewhere);
    if (surge > room) {
      surge = room;
      plan.events.push_back({true, "SurgeCapped",
                             fmt::format("surge limited to {} by --max-total-surge={}", surge,
                                         *config.max_total_surge)});
    }
  }
  const std::int32_t target = desired + surge;
  const bool desired_changed = memory.last_desired && *memory.last_desired != desired;
  memory.last_desired = desired;

  if (target != current && desired_changed) {  // the person edited the annotation: follow at once
    plan.scale_to = target;
    plan.direction = target > current ? ScaleDirection::kUp : ScaleDirection::kDown;
    memory.surge_unneeded_since.reset();
    plan.events.push_back({false, "DesiredReplicasChanged",
                           fmt::format("{} changed to {}: scaling {} -> {}", kDesiredAnnotation,
                                       desired, current, target)});
  } else if (target > current) {
    plan.scale_to = target;
    plan.direction = ScaleDirection::kUp;
    memory.surge_unneeded_since.reset();
    const std::string reason =
        d.replicas.stranded > 0 ? "ScaledUpForStrandedPods" : "ScaledUpToDesired";
    std::string why = d.replicas.stranded > 0
                          ? fmt::format("{} pods stranded on failed nodes {}", d.replicas.stranded,
                                        fmt::join(d.replicas.failed_nodes, ", "))
                          : "below the desired replicas";
    if (!d.replicas.evidence.empty())
      why += fmt::format(" ({})", fmt::join(d.replicas.evidence, "; "));
    plan.events.push_back(
        {false, reason, fmt::format("scaling {} -> {}: {}", current, target, why)});
  } else if (target < current) {
    plan_scale_down(plan, current, target, ceiling, config, memory, now);
  } else {
    memory.surge_unneeded_since.reset();
  }
  // A scale-down still waiting for its delay keeps the room; anything else sets it afresh.
  memory.unstarted_room = target < current && !plan.scale_to ? room : unstarted;
  if (!plan.scale_to && !recorded) {  // the operator's last scale, not recorded yet
    plan.annotations = {{std::string(kAppliedAnnotation), num(current)}};
  }
  if (d.replicas.next_stranded_in) requeue_within(plan, *d.replicas.next_stranded_in);
  return plan;
}

}  // namespace rg::op
