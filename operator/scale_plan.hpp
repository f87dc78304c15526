// The replica-guard policy for one Deployment, as a pure function from what the caches say to
// what to write: annotations, a new scale, Events, and when to look again. The Reconciler gathers
// the facts and carries the plan out; tests drive the policy without a cluster.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "operator/annotations.hpp"
#include "operator/replica_assessment.hpp"

namespace rg::op {

/// One Deployment as the caches show it.
struct DeploymentFacts {
  bool enabled = false;   ///< replica-guard.io/enabled is "true"
  bool deleting = false;  ///< metadata.deletionTimestamp is set
  bool paused = false;
  std::int32_t spec_replicas = 1;
  std::optional<std::string> desired_annotation;
  std::optional<std::string> applied_annotation;
  /// The operator's field manager owns spec.replicas (managedFields): its own scale set it.
  bool replicas_owned = false;
  std::optional<std::string> max_surge_annotation;
  std::optional<std::string> hpa_name;  ///< a HorizontalPodAutoscaler that targets it
  ReplicaAssessment replicas;
};

/// What the plan needs to know about the rest of the cluster.
struct ClusterFacts {
  bool surge_suppressed = false;     ///< too many nodes unhealthy: likely a partition
  std::int32_t surge_elsewhere = 0;  ///< surge currently held by other managed Deployments
};

struct PolicyConfig {
  IntOrPercent default_max_surge{25, true};
  std::optional<std::int32_t> max_total_surge;  ///< across the cluster; none = unbounded
  std::chrono::milliseconds scale_down_delay{std::chrono::seconds(60)};
};

/// Per-Deployment state that outlives one reconcile (kept in memory by the Reconciler; a new
/// leader starts without it, which only delays a scale-down). What must survive the operator is
/// in the Deployment (annotations, and the managedFields of its own scales), never here.
struct PlanMemory {
  std::optional<std::chrono::steady_clock::time_point> surge_unneeded_since;
  std::optional<std::int32_t> last_desired;  ///< the desired count of the previous reconcile
  /// Room above desired + max-surge made for never-started replacements: held while they cannot
  /// serve (see plan_scale), so a replacement that merely stops being judged stranded leaves
  /// with the rest of the surge, after the delay.
  std::int32_t unstarted_room = 0;
  /// The HorizontalPodAutoscaler the Deployment was last left to: its Warning Event is recorded
  /// once, when it appears, not at every reconcile.
  std::optional<std::string> left_to_hpa;
};

struct EventSpec {
  bool warning = false;
  std::string reason;
  std::string message;
};

enum class ScaleDirection { kNone, kUp, kDown };

struct ScalePlan {
  /// A merge patch of annotations: a value sets, std::nullopt removes. Written after the scale.
  std::vector<std::pair<std::string, std::optional<std::string>>> annotations;
  std::optional<std::int32_t> scale_to;  ///< new spec.replicas through the scale subresource
  ScaleDirection direction = ScaleDirection::kNone;
  std::vector<EventSpec> events;
  std::optional<std::chrono::milliseconds> requeue_after;
  bool managed = false;  ///< opted in and acted on: its per-Deployment metrics are exported
  std::int32_t desired = 0;
};

ScalePlan plan_scale(const DeploymentFacts& deployment, const ClusterFacts& cluster,
                     const PolicyConfig& config, PlanMemory& memory,
                     std::chrono::steady_clock::time_point now);

}  // namespace rg::op
