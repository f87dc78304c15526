// Informer events to Deployment keys (see event_handlers.hpp).
#include "operator/event_handlers.hpp"

#include <algorithm>
#include <unordered_set>

#include "informer/object_key.hpp"
#include "operator/cache_indexes.hpp"
#include "operator/cluster_facts.hpp"
#include "operator/hpa_lookup.hpp"

namespace rg::op {

using client::Deployment;
using client::HorizontalPodAutoscaler;
using client::Node;
using client::Pod;

std::vector<std::string> deployments_for_pod(const CacheView<Deployment>& deployments,
                                             const Pod& pod) {
  std::vector<std::string> keys;
  // Visited in place under the cache's read lock (by_index would sort and copy a pointer each).
  const auto consider = [&](const Deployment& d) {
    if (!of_interest(d)) return;
    try {
      if (selector_of(d).matches(pod.metadata.labels))
        keys.push_back(informer::meta_namespace_key(d));
    } catch (const std::exception&) {
      keys.push_back(informer::meta_namespace_key(d));  // its reconcile reports the selector
    }
  };
  // Each Deployment is indexed under one value, so no Deployment is considered twice.
  const std::string_view ns = pod.metadata.namespace_;
  deployments.for_each_in_index(kDeploymentsBySelectorIndex, std::string(ns) + "/", consider);
  for (const auto& [key, value] : pod.metadata.labels)
    deployments.for_each_in_index(kDeploymentsBySelectorIndex, label_index_value(ns, key, value),
                                  consider);
  return keys;
}

std::vector<std::string> deployments_for_node(const CacheView<Deployment>& deployments,
                                              const CacheView<Pod>& pods, std::string_view node) {
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;  // a node holds many pods of one Deployment
  for (const auto& pod : pods.by_index(kPodsByNodeIndex, node)) {
    for (auto& key : deployments_for_pod(deployments, *pod)) {
      if (seen.insert(key).second) keys.push_back(std::move(key));
    }
  }
  return keys;
}

namespace {

// Whether the Ready (or any other) condition changed type or status: heartbeats alone do not.
bool conditions_changed(const Node& before, const Node& after) {
  const auto& a = before.status.conditions;
  const auto& b = after.status.conditions;
  return a.size() != b.size() ||
         !std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
           return x.type == y.type && x.status == y.status;
         });
}

}  // namespace

void register_event_handlers(const WatchedInformers& informers, const Enqueue& enqueue,
                             std::chrono::steady_clock::duration sync_period) {
  for (auto* each : informers.deployments) {
    each->add_event_handler(
        "replica-guard",
        {.on_add = [enqueue](const auto& d, bool) { enqueue(informer::meta_namespace_key(*d)); },
         .on_update = [enqueue](const auto&,
                                const auto& d) { enqueue(informer::meta_namespace_key(*d)); },
         .on_delete = [enqueue](const auto& d) { enqueue(informer::key_of<Deployment>(d)); }},
        sync_period);
  }
  const auto pod_changed = [enqueue, deployments = view_of(informers.deployments)](
                               const std::shared_ptr<const Pod>& pod) {
    for (const auto& key : deployments_for_pod(deployments, *pod)) enqueue(key);
  };
  for (auto* each : informers.pods) {
    each->add_event_handler(
        "replica-guard",
        {.on_add =
             [pod_changed](const auto& p, bool initial) {
               if (!initial) pod_changed(p);
             },
         .on_update =
             [pod_changed, &health = informers.node_health](const auto& old_pod, const auto& p) {
               // Only a kubelet writes Ready=True: its node is alive (it may have put back a
               // status replica-guard or the node lifecycle controller set to False).
               if (!pod_facts(*old_pod).ready && pod_facts(*p).ready && !p->spec.node_name.empty())
                 health.proof_of_life(p->spec.node_name);
               pod_changed(p);
             },
         .on_delete =
             [pod_changed](const auto& p) {
               if (auto object = informer::object_of<Pod>(p)) pod_changed(object);
             }});
  }
  const auto node_changed = [enqueue, deployments = view_of(informers.deployments),
                             pods = view_of(informers.pods)](std::string_view name) {
    for (const auto& key : deployments_for_node(deployments, pods, name)) enqueue(key);
  };
  NodeLeaseMonitor& health = informers.node_health;
  informers.nodes.add_event_handler(
      "replica-guard", {.on_add =
                            [node_changed, &health](const auto& n, bool initial) {
                              health.node_seen(*n);
                              if (!initial) node_changed(n->metadata.name);
                            },
                        .on_update =
                            [node_changed, &health](const auto& old_node, const auto& n) {
                              health.node_seen(*n);  // a status heartbeat proves the node alive
                              if (conditions_changed(*old_node, *n)) node_changed(n->metadata.name);
                            },
                        .on_delete =
                            [node_changed, &health](const auto& n) {
                              const std::string name = informer::key_of<Node>(n);
                              health.node_deleted(name);
                              node_changed(name);
                            }});
  // A Lease in kube-node-lease is named after its node. Renewals are only recorded.
  if (informers.node_leases) {
    informers.node_leases->add_event_handler(
        "replica-guard",
        {.on_add = [&health](const auto& lease, bool) { health.lease_seen(*lease); },
         .on_update = [&health](const auto&, const auto& lease) { health.lease_seen(*lease); },
         .on_delete =
             [&health](const auto& lease) {
               health.lease_deleted(
                   informer::split_meta_namespace_key(informer::key_of<client::Lease>(lease)).name);
             }});
  }
  // An HPA appearing, retargeted or deleted changes who writes its Deployment's replicas.
  const auto hpa_changed = [enqueue](const HorizontalPodAutoscaler& hpa) {
    if (auto key = target_deployment_key(hpa)) enqueue(*key);
  };
  for (auto* each : informers.hpas) {
    each->add_event_handler(
        "replica-guard", {.on_add =
                              [hpa_changed](const auto& h, bool initial) {
                                if (!initial) hpa_changed(*h);
                              },
                          .on_update =
                              [hpa_changed](const auto& old_hpa, const auto& h) {
                                hpa_changed(*old_hpa);
                                hpa_changed(*h);
                              },
                          .on_delete =
                              [hpa_changed](const auto& h) {
                                if (auto object = informer::object_of<HorizontalPodAutoscaler>(h))
                                  hpa_changed(*object);
                              }});
  }
}

}  // namespace rg::op
