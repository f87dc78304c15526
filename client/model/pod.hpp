// Pod (core/v1): the typed projection of what an operator reads from a Pod: its metadata, where
// it runs, its phase and conditions, and its containers' readiness and states. Nothing more: an
// informer caches one per pod of the cluster, so every member costs memory 100k times over
// (spec.containers, IPs, images and container IDs are left to unstructured objects). Strings are
// CompactStrings (ShortStrings in conditions) and timestamps WallTimes, so that a cached pod
// stays small.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "client/model/boxed.hpp"
#include "client/model/compact_string.hpp"
#include "client/model/object_meta.hpp"
#include "client/model/short_string.hpp"
#include "client/model/time.hpp"

namespace rg::client {

struct PodSpec {
  CompactString node_name;  ///< empty until the pod is scheduled
};

/// A pod condition: type "Ready", "ContainersReady", "Initialized", "PodScheduled"...;
/// status "True", "False" or "Unknown". (lastProbeTime is not kept: pods never set it.)
/// status, reason and message are ShortStrings (48 bytes a condition, not 72): the status fits
/// inline, and reason and message, empty on a healthy pod, take nothing until set.
struct PodCondition {
  CompactString type;
  ShortString status;
  ShortString reason;
  ShortString message;
  WallTime last_transition_time;
};

struct ContainerStateWaiting {
  CompactString reason;
  CompactString message;
};

struct ContainerStateRunning {
  WallTime started_at;
};

struct ContainerStateTerminated {
  std::int32_t exit_code = 0;
  std::int32_t signal = 0;
  CompactString reason;
  CompactString message;
  WallTime started_at;
  WallTime finished_at;
};

/// At most one member is set on a real pod. waiting and terminated are boxed (8 bytes each
/// instead of 32 and 64); running, the state of nearly every cached container, is kept inline
/// (16 bytes, no heap block of its own).
struct ContainerState {
  Boxed<ContainerStateWaiting> waiting;
  std::optional<ContainerStateRunning> running;
  Boxed<ContainerStateTerminated> terminated;
};

struct ContainerStatus {
  CompactString name;
  bool ready = false;
  std::optional<bool> started;  // next to ready: the two share a word with restart_count
  std::int32_t restart_count = 0;
  ContainerState state;
  ContainerState last_state;
};

struct PodStatus {
  CompactString phase;  ///< Pending, Running, Succeeded, Failed, Unknown
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
