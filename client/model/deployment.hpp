// Deployment (apps/v1): the typed projection of what an operator reads from a Deployment: desired
// replicas (and which managers own them), selector, pause, and the status counts and conditions
// the controller publishes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/model/label_selector_spec.hpp"
#include "client/model/object_meta.hpp"

namespace rg::client {

/// The metadata of a pod template (its labels and annotations); the pod spec is not kept.
struct PodTemplateSpec {
  ObjectMeta metadata;
};

struct DeploymentSpec {
  std::optional<std::int32_t> replicas;  ///< absent means 1: use desired_replicas()
  LabelSelectorSpec selector;
  PodTemplateSpec template_;
  std::int32_t min_ready_seconds = 0;
  std::optional<std::int32_t> revision_history_limit;
  bool paused = false;
  std::optional<std::int32_t> progress_deadline_seconds;

  /// spec.replicas with the API default applied.
  std::int32_t desired_replicas() const { return replicas.value_or(1); }
};

/// A deployment condition: type "Available", "Progressing" or "ReplicaFailure".
struct DeploymentCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_update_time;
  std::string last_transition_time;
};

struct DeploymentStatus {
  std::int64_t observed_generation = 0;
  std::int32_t replicas = 0;
  std::int32_t updated_replicas = 0;
  std::int32_t ready_replicas = 0;
  std::int32_t available_replicas = 0;
  std::int32_t unavailable_replicas = 0;
  std::optional<std::int32_t> terminating_replicas;
  std::vector<DeploymentCondition> conditions;
  std::optional<std::int32_t> collision_count;
};

struct Deployment {
  ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
};

namespace detail {
const StructDesc& schema_of(Tag<PodTemplateSpec>);
const StructDesc& schema_of(Tag<Deployment>);
}  // namespace detail

}  // namespace rg::client
