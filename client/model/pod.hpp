// Pod (core/v1): the typed projection of what an operator reads from a Pod: where it runs, its
// phase and conditions, and its containers' readiness.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/model/object_meta.hpp"

namespace rg::client {

struct Container {
  std::string name;
  std::string image;
};

struct PodSpec {
  std::string node_name;
  std::string scheduler_name;
  std::string service_account_name;
  std::optional<std::int64_t> termination_grace_period_seconds;
  std::vector<Container> containers;
};

/// A pod condition: type "Ready", "ContainersReady", "Initialized", "PodScheduled"...;
/// status "True", "False" or "Unknown".
struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_probe_time;
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
  std::string container_id;
};

/// At most one member is set on a real pod.
struct ContainerState {
  std::optional<ContainerStateWaiting> waiting;
  std::optional<ContainerStateRunning> running;
  std::optional<ContainerStateTerminated> terminated;
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  std::int32_t restart_count = 0;
  std::optional<bool> started;
  std::string image;
  std::string image_id;
  std::string container_id;
  ContainerState state;
  ContainerState last_state;
};

struct PodStatus {
  std::string phase;  ///< Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;
  std::string nominated_node_name;
  std::string host_ip;
  std::string pod_ip;
  std::string start_time;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> container_statuses;
  std::optional<std::int64_t> observed_generation;
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
