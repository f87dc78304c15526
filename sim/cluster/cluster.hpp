// Cluster: the simulated cluster inside kube-sim -- deployment and ReplicaSet controllers,
// scheduler, one kubelet per node, node lifecycle and taint eviction -- each a coroutine
// driven through the Store like a real controller through the API (shared informer caches
// fed by Store watches; timers only for heartbeats, grace periods and delays). A person
// drives it with kubectl: label a node sim.replica-guard.io/kubelet=stopped to stop its
// kubelet, remove the label to restart it. A test or harness kills a kubelet without any API
// write (as a real death) with stop_kubelet() / POST /sim/kubelets/NODE/stop.
//
//   rg::sim::Store store;
//   rg::sim::Cluster cluster(store, {}, io.get_executor());
//   cluster.seed_nodes(3);
//   boost::asio::co_spawn(io, cluster.run(), boost::asio::bind_cancellation_slot(
//                                                stop.slot(), boost::asio::detached));
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/cluster_options.hpp"
#include "sim/cluster/kubelet_control.hpp"
#include "sim/cluster/seed.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"

namespace rg::sim {

class Cluster {
 public:
  /// Controllers run on a strand of `executor`; the Store must outlive the Cluster.
  Cluster(Store& store, ClusterOptions options, const boost::asio::any_io_executor& executor);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  /// Runs every controller until cancelled (then ends with operation_aborted, having stopped
  /// every controller and watch). Run it once at a time.
  boost::asio::awaitable<void> run();

  /// seed_nodes() / seed_deployments() with this cluster's store and kubelet version.
  std::vector<std::string> seed_nodes(std::size_t count = 3);
  void seed_deployments(const DeploymentSeed& seed);

  const ClusterOptions& options() const;

  /// The simulated components (kubelets, node lifecycle controller) then see `faults`'
  /// control-plane outages and partitions as if they went through the API: their writes fail
  /// while their identity cannot reach it. kube-sim's main passes the Server's.
  void use_faults(Faults& faults);

  /// Kills `node`'s kubelet without any API write: no more Lease renewals, node status or pod
  /// updates, until start_kubelet(). Throws std::out_of_range when there is no such Node.
  /// Thread-safe (any thread, also while run() runs elsewhere), as are the calls below.
  KubeletState stop_kubelet(const std::string& node);
  /// Starts it again: it renews its Lease and posts node status at once, then as usual.
  KubeletState start_kubelet(const std::string& node);
  /// Delays each of `node`'s Lease renewals and node status writes by `delay` (0: none).
  KubeletState delay_kubelet(const std::string& node, std::chrono::milliseconds delay);
  /// Every Node's kubelet, by node name.
  std::vector<KubeletState> kubelets() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::sim
