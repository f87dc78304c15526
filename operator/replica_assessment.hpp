// Counting a Deployment's serving and stranded replicas from what the caches hold about its pods
// and what the operator observed of their nodes. Pure: no I/O, no clock of its own; every time
// is the operator's own monotonic observation time.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::op {

/// What matters about one pod selected by the Deployment.
struct PodFacts {
  std::string node_name;     ///< empty: not scheduled yet
  bool terminating = false;  ///< metadata.deletionTimestamp is set
  bool ready = false;        ///< condition Ready is True
  /// Its kubelet started it (phase past Pending). A pod bound to a dead node never starts: it
  /// was placed there after the node died (a replacement the scheduler sent to it).
  bool started = true;
};

/// What the operator knows about one node.
struct NodeFacts {
  bool ready = true;           ///< its Ready condition is True
  bool lease_expired = false;  ///< suspect: its Lease is not being renewed (SuspectNodeDetector)
  /// When it became suspect (kept after the Lease signal stops being trusted, until the node
  /// shows life), and when the operator saw it turn NotReady.
  std::optional<std::chrono::steady_clock::time_point> suspected_at;
  std::optional<std::chrono::steady_clock::time_point> not_ready_since;
  std::string evidence;  ///< why it is suspect, for Events
};

/// Finds a node by name; std::nullopt when there is no such node (deleted).
using NodeLookup = std::function<std::optional<NodeFacts>(std::string_view)>;

/// Why pods count as stranded; also the `reason` label of replica_guard_stranded_replicas.
enum class StrandedReason : std::size_t { kNodeLeaseExpired, kNodeNotReady, kNodeGone };
inline constexpr std::size_t kStrandedReasons = 3;
using StrandedCounts = std::array<std::int32_t, kStrandedReasons>;
/// "node_lease_expired", "node_not_ready", "node_gone".
const char* to_label(StrandedReason reason);

/// How long a failure must last before a node's pods count as stranded.
struct NodeGrace {
  /// NotReady or Unknown: --node-grace-period or the Deployment's annotation, counted from the
  /// earlier of the observed transition and the node turning suspect.
  std::chrono::milliseconds not_ready{std::chrono::seconds(30)};
  /// Suspect from its Lease: 0, or the Deployment's node-grace-period annotation when set.
  std::chrono::milliseconds lease_expired{0};
};

struct ReplicaAssessment {
  std::int32_t selected = 0;  ///< pods matched by the selector, terminating or not
  std::int32_t serving = 0;   ///< Ready, not terminating, on a Ready node not suspect
  std::int32_t stranded = 0;  ///< not terminating, on a node failed for longer than the grace
  std::int32_t stranded_unstarted = 0;  ///< of those, never started (see PodFacts::started)
  StrandedCounts stranded_by_reason{};
  /// Pods on nodes failed for less than the grace: when the first of them will count as
  /// stranded, if any.
  std::optional<std::chrono::milliseconds> next_stranded_in;
  std::vector<std::string> failed_nodes;  ///< names of the nodes holding stranded pods, sorted
  std::vector<std::string> evidence;      ///< NodeFacts::evidence of the suspect ones among them
};

/// Terminating pods are never stranded: the ReplicaSet already replaces them. Pods on a node that
/// no longer exists are stranded at once.
ReplicaAssessment assess_replicas(const std::vector<PodFacts>& pods, const NodeLookup& nodes,
                                  std::chrono::steady_clock::time_point now, NodeGrace grace);

}  // namespace rg::op
