// TaintEvictionController: evicts pods from nodes with NoExecute taints they do not tolerate
// -- at once when no toleration matches, after the smallest matching tolerationSeconds
// otherwise (never when a matching toleration has none). The time counts from when the taint
// was first seen; tolerationSeconds are scaled by ClusterOptions::pod_eviction_timeout / 300 s.
// An eviction first adds the DisruptionTarget condition (DeletionByTaintManager), then
// deletes the pod, as the taint-eviction controller does. Events (source
// taint-eviction-controller, on {v1, Pod, namespace, name} without uid, as
// tainteviction/taint_eviction.go emitPodDeletionEvent makes it): TaintManagerEviction
// "Marking for deletion Pod <ns>/<name>" when it evicts, "Cancelling deletion of Pod
// <ns>/<name>" when a timed eviction is called off (the taint went, or the pod went first).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <map>
#include <string>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/event_recorder.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

class TaintEvictionController {
 public:
  explicit TaintEvictionController(Context& context);
  boost::asio::awaitable<void> run();

 private:
  using Clock = WorkLoop::Clock;
  void sync(const std::string& node_name);
  void evict(const PodView& pod);
  /// TaintManagerEviction on the pod `key` ("namespace/name").
  void record(const std::string& key, std::string_view what);

  Context& context_;
  WorkLoop loop_;
  EventRecorder events_;
  /// Pods with a timed eviction pending (the TimedWorkerQueue's workers): pod key -> node.
  std::map<std::string, std::string> scheduled_;
  /// (node, taint key, taint value) -> when the NoExecute taint was first seen.
  std::map<std::tuple<std::string, std::string, std::string>, Clock::time_point> tainted_since_;
};

}  // namespace rg::sim::cluster
