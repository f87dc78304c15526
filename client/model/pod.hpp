// Pod (core/v1): the typed projection of what an operator reads from a Pod: its metadata, where
// it runs, its phase and conditions, and its containers' readiness and states. Nothing more: an
// informer caches one per pod of the cluster, so every member costs memory 100k times over
// (spec.containers, IPs, images and container IDs are left to unstructured objects).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/model/boxed.hpp"
#include "client/model/object_meta.hpp"

namespace rg::client {

struct PodSpec {
  std::string node_name;  ///< empty until the pod is scheduled
};

/// A pod condition: type "Ready", "ContainersReady", "Initialized", "PodScheduled"...;
/// status "True", "False" or "Unknown". (lastProbeTime is not kept: pods never set it.)
struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_transition_time;
};

struct ContainerStateWaiting {
  std::string reason;
  std::string message;
};

struct ContainerStateRunning {
  std::string started_at;
};

struct ContainerStateTerminated {
  std::int32_t exit_code = 0;
  std::int32_t signal = 0;
  std::string reason;
  std::string message;
  std::string started_at;
  std::string finished_at;
};

/// At most one member is set on a real pod (boxed: 24 bytes instead of 250 per state).
struct ContainerState {
  Boxed<ContainerStateWaiting> waiting;
  Boxed<ContainerStateRunning> running;
  Boxed<ContainerStateTerminated> terminated;
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  std::int32_t restart_count = 0;
  std::optional<bool> started;
  ContainerState state;
  ContainerState last_state;
};

struct PodStatus {
  std::string phase;  ///< Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> container_statuses;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

namespace detail {
const StructDesc& schema_of(Tag<Pod>);
}  // namespace detail

}  // namespace rg::client
