// Counting a Deployment's serving and stranded replicas from what the caches hold about its pods
// and their nodes. Pure: no I/O, no clock of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::op {

using WallClock = std::chrono::system_clock;

/// What matters about one pod selected by the Deployment.
struct PodFacts {
  std::string node_name;     ///< empty: not scheduled yet
  bool terminating = false;  ///< metadata.deletionTimestamp is set
  bool ready = false;        ///< condition Ready is True
};

/// What matters about one node. A node is unhealthy when its Ready condition is not True.
struct NodeFacts {
  bool ready = true;
  WallClock::time_point unhealthy_since{};  ///< Ready's lastTransitionTime, when not ready
};

/// Finds a node by name in the cache; std::nullopt when there is no such node (deleted).
using NodeLookup = std::function<std::optional<NodeFacts>(std::string_view)>;

struct ReplicaAssessment {
  std::int32_t selected = 0;  ///< pods matched by the selector, terminating or not
  std::int32_t serving = 0;   ///< Ready, not terminating, on a Ready node
  std::int32_t stranded = 0;  ///< not terminating, on a node unhealthy for longer than the grace
  /// Pods on nodes unhealthy for less than the grace: when the first of them will count as
  /// stranded, if any.
  std::optional<std::chrono::milliseconds> next_stranded_in;
  std::vector<std::string> failed_nodes;  ///< names of the nodes holding stranded pods, sorted
};

/// Terminating pods are never stranded: the ReplicaSet already replaces them. Pods on a node that
/// no longer exists are stranded at once.
ReplicaAssessment assess_replicas(const std::vector<PodFacts>& pods, const NodeLookup& nodes,
                                  WallClock::time_point now, std::chrono::milliseconds grace);

}  // namespace rg::op
