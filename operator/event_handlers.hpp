// From informer events to workqueue keys: the handlers the operator registers on its informers,
// and the mapping they use (a Pod -> the Deployments selecting it; a Node -> the Deployments with
// pods on it, through the spec.nodeName index). Handlers only map and enqueue: every decision is
// the reconciler's, on the key. Node and node Lease events also go to the NodeLeaseMonitor, which
// only records them: its sweep, not each renewal, enqueues the Deployments of a node whose
// standing changed.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/deployment.hpp"
#include "client/model/horizontal_pod_autoscaler.hpp"
#include "client/model/lease.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "informer/shared_index_informer.hpp"
#include "operator/cache_view.hpp"
#include "operator/node_lease_monitor.hpp"

namespace rg::op {

template <class T>
using Informers = std::vector<informer::SharedIndexInformer<T>*>;

/// One view over the caches of several informers of a kind (one per watched namespace).
template <class T>
CacheView<T> view_of(const Informers<T>& informers) {
  std::vector<const informer::Indexer<T>*> indexers;
  for (const auto* each : informers) indexers.push_back(&each->indexer());
  return CacheView<T>(std::move(indexers));
}

/// The keys of the opted-in (or still annotated) Deployments whose selector matches `pod`, in no
/// particular order. `deployments` carries deployment_indexers().
std::vector<std::string> deployments_for_pod(const CacheView<client::Deployment>& deployments,
                                             const client::Pod& pod);

/// The same for every pod on `node`, each key once. `pods` carries pod_indexers().
std::vector<std::string> deployments_for_node(const CacheView<client::Deployment>& deployments,
                                              const CacheView<client::Pod>& pods,
                                              std::string_view node);

/// The informers whose events reach the workqueue.
struct WatchedInformers {
  Informers<client::Deployment> deployments;
  Informers<client::Pod> pods;
  informer::SharedIndexInformer<client::Node>& nodes;
  Informers<client::HorizontalPodAutoscaler> hpas;  ///< none without --detect-hpa
  /// Leases in kube-node-lease; null with --node-lease-grace=0.
  informer::SharedIndexInformer<client::Lease>* node_leases;
  NodeLeaseMonitor& node_health;
};

/// Adds a Deployment key to the workqueue (a no-op between leadership terms).
using Enqueue = std::function<void(const std::string& key)>;

/// Registers the "replica-guard" handler on each informer. Initial-list adds of Pods, Nodes and
/// HPAs enqueue nothing: every Deployment is queued when a term starts. Leases and Nodes are
/// recorded in `informers.node_health`. The Deployments' handler resyncs every `sync_period`
/// (--sync-period; zero: never), queueing every cached Deployment again; the others never do (a
/// resynced Lease must not read as a renewal, and Pods and Nodes only lead to Deployments).
void register_event_handlers(const WatchedInformers& informers, const Enqueue& enqueue,
                             std::chrono::steady_clock::duration sync_period);

}  // namespace rg::op
