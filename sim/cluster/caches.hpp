// Caches: the informers the simulated cluster's controllers share -- one per resource type,
// with the secondary indexes the controllers look things up by -- and the cluster-wide
// context every controller gets (store, options, caches).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <string_view>

#include "sim/cluster/cluster_options.hpp"
#include "sim/cluster/informer.hpp"
#include "sim/cluster/kubelet_control.hpp"
#include "sim/cluster/views.hpp"
#include "sim/faults.hpp"
#include "sim/resource_types.hpp"

namespace rg::sim::cluster {

struct Caches {
  Caches(Store& store, const ResourceTypes& types);

  Informer<PodView> pods;
  Informer<NodeView> nodes;
  Informer<LeaseView> leases;
  Informer<ReplicaSetView> replica_sets;
  Informer<DeploymentView> deployments;

  std::size_t pods_by_node;        ///< spec.nodeName (bound pods only)
  std::size_t unscheduled_pods;    ///< "pending" for live pods without a node
  std::size_t pods_by_controller;  ///< the controlling owner's uid
  std::size_t replica_sets_by_controller;

  /// Lists every type (the caches are synced when this returns).
  void start();
  /// Runs every informer's watch until cancelled.
  boost::asio::awaitable<void> run();
};

/// What every controller of the cluster works with.
struct Context {
  Store& store;
  const ResourceTypes& types;
  const ClusterOptions& options;
  Caches& caches;
  boost::asio::any_io_executor executor;  ///< the cluster's strand
  KubeletControl& kubelet_control;        ///< kubelets stopped, started or slowed from outside
  const std::atomic<Faults*>& faults;     ///< the API server's outages and partitions, if any

  /// Whether a request of this identity would reach the API server now (see
  /// Faults::reachable): the components write the store directly and ask this first.
  bool api_reachable(std::string_view user, std::string_view user_agent) const {
    const Faults* current = faults.load();
    return current == nullptr || current->reachable(user, user_agent);
  }
};

}  // namespace rg::sim::cluster
