// NodeLifecycleController: watches heartbeats (the node's Ready lastHeartbeatTime and its
// Lease's renewTime). A node silent for node_monitor_grace_period goes Ready=Unknown (also
// MemoryPressure/DiskPressure/PIDPressure; reason NodeStatusUnknown, "Kubelet stopped posting
// node status."). Nodes get the taints of their Ready status -- node.kubernetes.io/unreachable
// (Unknown) or not-ready (False), NoSchedule and NoExecute, with timeAdded; unschedulable:
// NoSchedule for cordoned nodes -- and lose them when Ready again. Pods on a node that is not
// Ready get Ready=False (only that condition's status, as MarkPodsNotReady does).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>
#include <unordered_map>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

class NodeLifecycleController {
 public:
  explicit NodeLifecycleController(Context& context);
  boost::asio::awaitable<void> run();

 private:
  using Clock = WorkLoop::Clock;
  /// The last heartbeat seen and when it was seen (the controller's probeTimestamp).
  struct Probe {
    std::string heartbeat;
    std::string renew_time;
    Clock::time_point seen;
  };

  void sync(const std::string& node_name);
  void mark_unknown(const NodeView& node);
  void update_taints(const NodeView& node);
  void mark_pods_not_ready(const std::string& node_name);

  Context& context_;
  WorkLoop loop_;
  std::unordered_map<std::string, Probe> probes_;
};

}  // namespace rg::sim::cluster
