// DeploymentController: one ReplicaSet per pod template (named "<deployment>-<hash>", the hash
// also in the pod-template-hash label of its selector and template), owned by the Deployment.
// On a template change it rolls out: the new ReplicaSet scales up within maxSurge, old ones
// scale down as long as maxUnavailable allows (Recreate: old to zero first). Paused
// Deployments only scale. Status (replicas, updatedReplicas, readyReplicas,
// availableReplicas, unavailableReplicas, observedGeneration) and the Available and
// Progressing conditions are what `kubectl rollout status` and kstatus read. Every scaling of
// a ReplicaSet is a ScalingReplicaSet Event on the Deployment (source deployment-controller).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/event_recorder.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

/// maxSurge / maxUnavailable resolved against the desired replicas (intstr percentages:
/// surge rounds up, unavailable down; both zero makes unavailable one).
struct RolloutBudget {
  std::int64_t max_surge = 0;
  std::int64_t max_unavailable = 0;
};
RolloutBudget rollout_budget(const DeploymentView& deployment);

/// The ReplicaSet of `deployment`'s current template: "<name>-<pod-template-hash>", the hash
/// added to its labels, selector and template, owned by the Deployment, with the
/// desired-replicas, max-replicas and revision annotations; status.replicas 0.
boost::json::object new_replica_set(const DeploymentView& deployment, std::int64_t replicas,
                                    std::int64_t revision);

class DeploymentController {
 public:
  explicit DeploymentController(Context& context);
  boost::asio::awaitable<void> run();

 private:
  using ReplicaSetPtr = Informer<ReplicaSetView>::ViewPtr;
  void sync(const std::string& key);
  std::vector<ReplicaSetPtr> owned_replica_sets(const DeploymentView& deployment) const;
  /// The Deployment's annotations on its current ReplicaSet, and revision `new_revision` at
  /// least (the one it had kept in revision-history); written only when something changes.
  ReplicaSetPtr update_new_replica_set(const DeploymentView& deployment,
                                       const ReplicaSetPtr& replica_set, std::int64_t new_revision);
  ReplicaSetPtr create_replica_set(const DeploymentView& deployment, std::int64_t replicas,
                                   std::int64_t revision);
  void scale(const ReplicaSetView& replica_set, std::int64_t replicas,
             const DeploymentView& deployment);
  void roll(const DeploymentView& deployment, const ReplicaSetView& new_rs,
            const std::vector<ReplicaSetPtr>& old);
  void update_status(const DeploymentView& deployment, bool created_new_rs);

  Context& context_;
  WorkLoop loop_;
  EventRecorder events_;
};

}  // namespace rg::sim::cluster
