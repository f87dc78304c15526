// Scheduler: binds pending pods (no spec.nodeName, schedulerName default-scheduler) to Ready,
// schedulable nodes whose NoSchedule/NoExecute taints the pod tolerates and whose labels match
// the pod's spec.nodeSelector (kube-scheduler's filters in their order: NodeUnschedulable,
// TaintToleration, NodeAffinity; a node is rejected for the first that fails), spreading them
// (fewest pods first, then by name), and sets the PodScheduled condition -- True on binding,
// False/Unschedulable with kube-scheduler's message when no node fits; such pods are retried
// when a node change may let them fit (a node added, turned Ready or schedulable, a taint gone,
// its labels changed). Records its Events through events.k8s.io/v1 as kube-scheduler does
// (reportingController default-scheduler): Scheduled (action Binding) after a binding,
// FailedScheduling (action Scheduling, Warning) before the condition of a failure.
// Like kube-scheduler in a large cluster it stops looking once it has found
// num_feasible_nodes_to_find() fitting nodes, starting each search where the last one stopped
// (percentageOfNodesToScore's adaptive default), so a pod costs O(that), not O(nodes x pods).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/events_v1_recorder.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

/// schedule_one.go numFeasibleNodesToFind with percentageOfNodesToScore unset: every node under
/// 100, else (50 - nodes/125) % of them, at least 5 % and at least 100.
std::size_t num_feasible_nodes_to_find(std::size_t nodes);

/// Whether a node change (`before` null: a new node) can make a pending pod fit: it turned
/// Ready or schedulable, lost a taint, or its labels changed. Pending pods are retried only then.
bool may_fit_more_pods(const NodeView* before, const NodeView& after);

class Scheduler {
 public:
  explicit Scheduler(Context& context);
  boost::asio::awaitable<void> run();

 private:
  void sync(const std::string& key);
  /// The node to bind to, or "" with why none fits in `reason`.
  std::string pick_node(const PodView& pod, std::string& reason);

  Context& context_;
  WorkLoop loop_;
  EventsV1Recorder events_;
  std::unordered_map<std::string, std::size_t> load_;  ///< node -> its active pods
  std::vector<std::string> node_order_;                ///< the nodes by name; empty: to be rebuilt
  std::size_t next_start_ = 0;                         ///< nextStartNodeIndex
};

}  // namespace rg::sim::cluster
