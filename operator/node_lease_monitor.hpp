// NodeLeaseMonitor: the SuspectNodeDetector behind a lock, on the operator's monotonic clock. The
// Lease and Node handlers tell it what they observe (never enqueueing per renewal: 5,000 nodes
// renew ~500 times a second); a coarse sweep (a twenty-fourth of the grace: 1 s by default)
// finds the nodes whose standing changed -- turned suspect, or showed life again -- and hands
// them to the workqueue mapping (deployments_for_node). It also exports
// replica_guard_suspect_nodes and the observed renewal gaps, and answers the reconciler's
// questions about a node (NodeHealth).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/lease.hpp"
#include "client/model/node.hpp"
#include "informer/reflector_observer.hpp"
#include "operator/suspect_node_detector.hpp"

namespace rg::op {

class OperatorMetrics;

class NodeLeaseMonitor {
 public:
  using Clock = std::chrono::steady_clock;

  /// `clock` (tests inject one) must be monotonic. `metrics` may be null.
  NodeLeaseMonitor(SuspectNodeConfig config, OperatorMetrics* metrics,
                   std::function<Clock::time_point()> clock = Clock::now);

  /// Called from the Lease informer's handler (a Lease in kube-node-lease is named after its node).
  void lease_seen(const client::Lease& lease);
  void lease_deleted(std::string_view node);
  /// Called from the Node informer's handler.
  void node_seen(const client::Node& node);
  void node_deleted(std::string_view node);
  /// Called from the Pod informer's handler when a pod on `node` turned Ready.
  void proof_of_life(std::string_view node);
  /// The Lease informer (re)listed, or this instance gained leadership: silences count from now.
  void observing_from_now();

  /// What the operator observed of `node`, now.
  NodeHealth health(std::string_view node);
  /// The suspect nodes as of the last sweep, sorted.
  std::vector<std::string> suspects();
  /// The suspect nodes now, sorted (for actions that must honour a restart of observation, such
  /// as a leadership gained since the last sweep).
  std::vector<std::string> suspects_now();
  /// The monitor's clock, for decisions compared with NodeHealth's times.
  Clock::time_point now() const { return clock_(); }

  /// Looks for nodes whose standing changed since the last sweep (turned suspect, or stopped
  /// being suspect) and returns them; sets the gauge.
  std::vector<std::string> sweep();
  /// How often run() sweeps.
  std::chrono::milliseconds sweep_period() const;
  /// Every sweep_period(): sweeps, and awaits `after_sweep` with the nodes it returns. Runs until
  /// cancelled.
  boost::asio::awaitable<void> run(
      std::function<boost::asio::awaitable<void>(std::vector<std::string> changed)> after_sweep);

 private:
  std::function<Clock::time_point()> clock_;
  OperatorMetrics* metrics_;
  std::mutex mutex_;  // guards detector_ and suspects_
  SuspectNodeDetector detector_;
  std::vector<std::string> suspects_;  ///< as of the last sweep
};

/// The Lease informer's reflector observer: `inner` (metrics; may be null) hears everything, and
/// each complete (re)list restarts the monitor's observation (observing_from_now).
std::shared_ptr<informer::ReflectorObserver> restart_on_relist(
    std::shared_ptr<informer::ReflectorObserver> inner, NodeLeaseMonitor& monitor);

/// The detector's settings for --node-lease-grace: the liveness window is half the grace (12 s
/// for 24 s: more than the 10 s renew interval, less than the grace minus that interval).
SuspectNodeConfig suspect_node_config(std::chrono::milliseconds grace);

}  // namespace rg::op
