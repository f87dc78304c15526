// NodeLifecycleController: kube-controller-manager's node lifecycle controller
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go; sources in sim/README.md, "Node
// timing"):
//  - monitorNodeHealth every node_monitor_period: a node's probeTimestamp is when the
//    controller last saw its Ready lastHeartbeatTime or its Lease's renewTime change; once
//    node_monitor_grace_period has passed since, Ready, MemoryPressure, DiskPressure and
//    PIDPressure go Unknown ("NodeStatusUnknown", "Kubelet stopped posting node status."), a
//    NodeNotReady Event is recorded for the node and MarkPodsNotReady flips each of its pods'
//    Ready condition to False (a NodeNotReady Warning Event on each) -- queued per node, so a
//    zone turning NotReady at once is marked a slice at a time beside the rest of the cluster
//    (upstream's pass runs on parallel workers; the kubelets never wait for it);
//  - NoSchedule taints follow the node's conditions at once (doNoScheduleTaintingPass:
//    Ready False -> not-ready, Unknown -> unreachable; spec.unschedulable -> unschedulable);
//  - NoExecute taints go through each zone's rate-limited queue (doNoExecuteTaintingPass): a
//    pass that observes the node NotReady or Unknown queues it, the queue adds the taint as
//    the zone's rate allows; Ready again removes both NoExecute taints at once;
//  - zones (topology.kubernetes.io/region and zone labels) are Normal, PartialDisruption or
//    FullDisruption (handleDisruption/ComputeZoneState) and set the queue's rate; when every
//    zone is fully disrupted the controller removes every NoExecute taint and stops tainting.
// Its writes and Events fail while its identity cannot reach the API server; after an outage
// longer than the leader-election renew deadline it starts afresh, as a restarted
// kube-controller-manager does (every node gets a full grace period from then).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/event_recorder.hpp"
#include "sim/cluster/rate_limited_queue.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

/// The zone key of a node (KK nodetopology.GetZoneKey): "" without region and zone labels.
std::string zone_key(const StoredObject& node);

enum class ZoneState { initial, normal, partial_disruption, full_disruption };

/// ComputeZoneState: FullDisruption when no node is Ready (and some are not), PartialDisruption
/// when more than 2 are not Ready and they are at least `unhealthy_threshold` of the zone.
ZoneState compute_zone_state(int ready, int not_ready, double unhealthy_threshold);

class NodeLifecycleController {
 public:
  explicit NodeLifecycleController(Context& context);
  boost::asio::awaitable<void> run();

  /// Zone -> state, as of the last monitor pass (for tests).
  const std::map<std::string, ZoneState>& zone_states() const { return zone_states_; }

 private:
  using Clock = WorkLoop::Clock;
  /// nodeHealthData: what the controller last saw of a node and when.
  struct NodeHealth {
    std::string heartbeat;   ///< Ready lastHeartbeatTime
    std::string renew_time;  ///< the Lease's renewTime
    Clock::time_point probe;
  };

  void sync(const std::string& key);
  void monitor_node_health();
  /// One node's part of the pass: returns its current Ready status ("" when unknown) for its
  /// zone, or nullopt when its update failed.
  std::optional<std::string> update_node_health(const NodeView& node, Clock::time_point now);
  bool mark_unknown(const NodeView& node);
  void process_taint_based_eviction(const NodeView& node, const std::string& observed);
  void handle_disruption(const std::map<std::string, std::pair<int, int>>& zones,
                         Clock::time_point now);
  void set_limiter(const std::string& zone, int zone_size, ZoneState state, Clock::time_point now);
  RateLimitedTimedQueue& tainter(const std::string& zone);
  void no_execute_tainting_pass();
  void no_schedule_tainting_pass(const std::string& node_name);
  /// Swaps the controller's taints on a node: adds `add` (timeAdded now), removes `remove`
  /// (as key/effect pairs). False when the write failed.
  bool swap_taints(const std::string& node_name,
                   const std::vector<std::pair<std::string_view, std::string_view>>& add,
                   const std::vector<std::pair<std::string_view, std::string_view>>& remove);
  bool mark_node_as_reachable(const NodeView& node);
  bool mark_pods_not_ready(const std::string& node_name);
  void schedule_tainting_pass();
  bool reachable() const;
  void restart();

  Context& context_;
  WorkLoop loop_;
  EventRecorder events_;
  std::unordered_map<std::string, NodeHealth> health_;
  std::set<std::string> known_nodes_;
  std::set<std::string> retry_mark_pods_;  // nodesToRetry, and nodes queued to be marked
  std::map<std::string, ZoneState> zone_states_;
  std::map<std::string, RateLimitedTimedQueue> tainters_;
  std::optional<Clock::time_point> unreachable_since_;
};

}  // namespace rg::sim::cluster
