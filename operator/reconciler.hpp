// Reconciler: one Deployment key at a time. Reads the Deployment, its pods and their nodes from
// the informers' caches (never from the API server), asks plan_scale() what to do, and carries
// the plan out: annotations through a merge PATCH on the Deployment, replicas through the scale
// subresource, both guarded by resourceVersion; Events; metrics. Only the leader writes.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/model/deployment.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "client/record/event_recorder.hpp"
#include "informer/indexer.hpp"
#include "operator/cache_indexes.hpp"
#include "operator/cache_view.hpp"
#include "operator/node_lease_monitor.hpp"
#include "operator/operator_metrics.hpp"
#include "operator/scale_plan.hpp"
#include "operator/write_expectations.hpp"

namespace rg::op {

/// Writes to Deployments; the API server in production, a recorder in tests. Both calls are
/// conditional on `resource_version` and throw client::ApiError (Conflict, NotFound, ...).
class DeploymentWriter {
 public:
  virtual ~DeploymentWriter() = default;
  /// Merge-patches metadata.annotations (std::nullopt removes a key); returns the new
  /// resourceVersion.
  virtual boost::asio::awaitable<std::string> patch_annotations(
      const std::string& namespace_, const std::string& name, const std::string& resource_version,
      const std::vector<std::pair<std::string, std::optional<std::string>>>& annotations) = 0;
  /// Sets spec.replicas through the scale subresource; returns the new resourceVersion.
  virtual boost::asio::awaitable<std::string> scale(const std::string& namespace_,
                                                    const std::string& name,
                                                    const std::string& resource_version,
                                                    std::int32_t replicas) = 0;
};

/// The caches the reconciler reads (Deployments and Pods: one per watched namespace, or one).
struct Caches {
  CacheView<client::Deployment> deployments;     ///< with deployment_indexers()
  CacheView<client::Pod> pods;                   ///< with pod_indexers()
  const informer::Indexer<client::Node>& nodes;  ///< with node_indexers()
  /// What the operator observed of each node (Lease renewals, readiness), on its own clock.
  NodeLeaseMonitor& node_health;
  /// The name of a HorizontalPodAutoscaler targeting the Deployment, if any (may be empty).
  std::function<std::optional<std::string>(const std::string& namespace_, const std::string& name)>
      hpa_for;
};

struct ReconcilerConfig {
  PolicyConfig policy;
  /// How long a node must be NotReady before its pods count as stranded.
  std::chrono::milliseconds node_grace_period{std::chrono::seconds(30)};
  double max_unhealthy_node_fraction = 0.55;
  bool dry_run = false;
  /// How long a reconcile waits for the cache to show the operator's own last write.
  std::chrono::milliseconds write_echo_timeout{std::chrono::seconds(15)};
};

/// What the worker does with the key afterwards.
struct ReconcileOutcome {
  enum class Next { kDone, kRetry, kAfter } next = Next::kDone;  ///< kRetry = rate-limited requeue
  std::chrono::milliseconds after{0};
};

/// Whether `unhealthy` of `nodes` is more than `max_unhealthy_node_fraction` of them: a
/// partition is likelier than dead nodes, so no new surge and no action on suspect nodes.
bool too_many_unhealthy(std::size_t unhealthy, std::size_t nodes,
                        double max_unhealthy_node_fraction);

/// too_many_unhealthy() for the cached nodes: NotReady, Unknown or suspect ones are unhealthy.
bool surges_suppressed(const informer::Indexer<client::Node>& nodes, NodeLeaseMonitor& node_health,
                       double max_unhealthy_node_fraction);

class Reconciler {
 public:
  Reconciler(Caches caches, DeploymentWriter& writer, client::EventRecorder& events,
             OperatorMetrics* metrics, ReconcilerConfig config, std::function<bool()> may_write);

  /// Reconciles "namespace/name" (taken by value: a coroutine must own its arguments). Never
  /// throws except for cancellation: failures become a
  /// retry, logged and counted.
  boost::asio::awaitable<ReconcileOutcome> reconcile(std::string key);

 private:
  boost::asio::awaitable<ReconcileOutcome> reconcile_existing(const client::Deployment& deployment);
  boost::asio::awaitable<void> carry_out(const std::string& key,
                                         const client::Deployment& deployment,
                                         const ScalePlan& plan);
  ClusterFacts cluster_facts(const std::string& key);
  ReplicaAssessment assess(const client::Deployment& deployment, NodeGrace grace) const;

  Caches caches_;
  DeploymentWriter& writer_;
  client::EventRecorder& events_;
  OperatorMetrics* metrics_;
  ReconcilerConfig config_;
  std::function<bool()> may_write_;
  std::mutex memory_mutex_;
  std::map<std::string, PlanMemory, std::less<>> memory_;
  WriteExpectations expectations_;
};

}  // namespace rg::op
