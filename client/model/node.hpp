// Node (core/v1): the typed projection of what an operator reads from a Node: its conditions
// (Ready above all), whether it is cordoned, and its taints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/model/object_meta.hpp"

namespace rg::client {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  ///< NoSchedule, PreferNoSchedule, NoExecute
  std::optional<std::string> time_added;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  std::string pod_cidr;
};

/// A node condition: type "Ready", "MemoryPressure", "DiskPressure", "PIDPressure",
/// "NetworkUnavailable"; status "True", "False" or "Unknown" (the node controller sets Ready to
/// Unknown when the kubelet stops posting).
struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_heartbeat_time;
  std::string last_transition_time;
};

struct NodeStatus {
  std::string phase;
  std::vector<NodeCondition> conditions;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

namespace detail {
const StructDesc& schema_of(Tag<Node>);
}  // namespace detail

}  // namespace rg::client
