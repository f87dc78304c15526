// Scheduler: binds pending pods (no spec.nodeName, schedulerName default-scheduler) to Ready,
// schedulable nodes whose NoSchedule/NoExecute taints the pod tolerates and whose labels match
// the pod's spec.nodeSelector (kube-scheduler's filters in their order: NodeUnschedulable,
// TaintToleration, NodeAffinity; a node is rejected for the first that fails), spreading them
// (fewest pods first, then by name), and sets the PodScheduled condition -- True on binding,
// False/Unschedulable with kube-scheduler's message when no node fits; such pods are retried
// whenever a node changes. Records its Events through events.k8s.io/v1 as kube-scheduler does
// (reportingController default-scheduler): Scheduled (action Binding) after a binding,
// FailedScheduling (action Scheduling, Warning) before the condition of a failure.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/events_v1_recorder.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

class Scheduler {
 public:
  explicit Scheduler(Context& context);
  boost::asio::awaitable<void> run();

 private:
  void sync(const std::string& key);
  /// The node to bind to, or "" with why none fits in `reason`.
  std::string pick_node(const PodView& pod, std::string& reason) const;

  Context& context_;
  WorkLoop loop_;
  EventsV1Recorder events_;
};

}  // namespace rg::sim::cluster
