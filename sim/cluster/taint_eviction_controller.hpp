// TaintEvictionController: evicts pods from nodes with NoExecute taints they do not tolerate
// -- at once when no toleration matches, after the smallest matching tolerationSeconds
// otherwise (never when a matching toleration has none). The time counts from when the taint
// was first seen; tolerationSeconds are scaled by ClusterOptions::pod_eviction_timeout / 300 s.
// An eviction first adds the DisruptionTarget condition (DeletionByTaintManager), then
// deletes the pod, as the taint-eviction controller does.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <map>
#include <string>

#include "sim/cluster/caches.hpp"
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

  Context& context_;
  WorkLoop loop_;
  /// (node, taint key, taint value) -> when the NoExecute taint was first seen.
  std::map<std::tuple<std::string, std::string, std::string>, Clock::time_point> tainted_since_;
};

}  // namespace rg::sim::cluster
