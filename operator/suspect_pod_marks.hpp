// Which pods of a suspect node get their Ready condition set to False
// (--mark-suspect-pods-not-ready), and the JSON patch that does it. Pure: the SuspectPodMarker
// feeds it from the caches and the NodeLeaseMonitor and does the I/O.
//
// Rules (plan_not_ready_marks):
//  - only with the flag on and surges not suppressed (--max-unhealthy-node-fraction: a partition
//    is likelier than dead nodes, so nothing is touched);
//  - only pods of guarded Deployments (opted in, not paused or being deleted, not left to an
//    HPA), bound to a suspect node, whose Ready condition is True;
//  - each pod at most once per suspect episode (a node's suspicion, from the time it began until
//    the node shows life): a kubelet that puts Ready=True back proves itself alive and ends the
//    episode (SuspectNodeDetector::proof_of_life), and a later suspicion is a new episode;
//  - warm-up needs no rule of its own: the detector reports no suspect before a full grace of
//    observation (start, relist, leadership).
// The write is the node lifecycle controller's MarkPodsNotReady (Kubernetes
// pkg/controller/util/node/controller_utils.go): the Ready condition's status becomes False and,
// as pkg/api/v1/pod/util.go UpdatePodCondition does for a changed status, its
// lastTransitionTime now; reason and message stay.
#pragma once

#include <boost/json/array.hpp>

#include <chrono>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rg::op {

/// The Warning Event recorded on each marked pod.
inline constexpr std::string_view kNodeLeaseExpiredReason = "NodeLeaseExpired";

struct MarkPolicy {
  bool enabled = false;            ///< --mark-suspect-pods-not-ready
  bool surges_suppressed = false;  ///< more unhealthy nodes than --max-unhealthy-node-fraction
};

/// One suspect node's current episode: its suspicion began at `since` (the detector's
/// suspected_at, on the operator's monotonic clock).
struct SuspectEpisode {
  std::string node;
  std::chrono::steady_clock::time_point since;
};

/// One pod bound to a node, as the caches show it.
struct PodReadiness {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node;
  bool ready = false;               ///< its Ready condition is True
  std::size_t ready_condition = 0;  ///< that condition's index in status.conditions
  bool guarded = false;             ///< a guarded Deployment selects it
};

struct PodMark {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node;
  std::size_t ready_condition = 0;
  bool operator==(const PodMark&) const = default;
};

/// The pods marked (or, in --dry-run, reported) in each node's current episode.
class MarkedPods {
 public:
  bool contains(const SuspectEpisode& episode, std::string_view uid) const;
  void add(const SuspectEpisode& episode, std::string uid);
  /// Forgets the episodes that are not among `current` (the node showed life, or is gone).
  void keep_only(const std::vector<SuspectEpisode>& current);

 private:
  struct Marked {
    std::chrono::steady_clock::time_point since;
    std::set<std::string, std::less<>> uids;
  };
  std::map<std::string, Marked, std::less<>> by_node_;
};

/// The pods to mark now, in the order of `pods`.
std::vector<PodMark> plan_not_ready_marks(const std::vector<SuspectEpisode>& suspects,
                                          const std::vector<PodReadiness>& pods, MarkPolicy policy,
                                          const MarkedPods& marked);

/// The JSON patch (RFC 6902) for a pod's status subresource that sets the Ready condition at
/// `index` of status.conditions to False with lastTransitionTime `now` (RFC 3339), keeping its
/// reason and message. Its `test` operations make it fail (422) unless the pod is still the one
/// with `uid` and that condition is still Ready=True: a pod replaced, or whose status changed
/// since the cache showed it, is left for the next pass to judge again.
boost::json::array not_ready_patch(std::string_view uid, std::size_t index, std::string_view now);

}  // namespace rg::op
