// ReplicaSetController: keeps spec.replicas active pods for every ReplicaSet, exactly as
// Kubernetes counts them: a pod is active unless it is terminating or finished, so pods
// stranded on a dead node still count until they are deleted -- the gap replica-guard closes.
// Creates pods from the template (controller owner reference), deletes the least valuable
// first (unscheduled, pending, not ready, newest), and writes status.replicas /
// fullyLabeledReplicas / readyReplicas / availableReplicas / observedGeneration. Records
// SuccessfulCreate / SuccessfulDelete Events on the ReplicaSet (source replicaset-controller).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/event_recorder.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

class ReplicaSetController {
 public:
  explicit ReplicaSetController(Context& context);
  boost::asio::awaitable<void> run();

 private:
  void sync(const std::string& key);
  void manage_replicas(const ReplicaSetView& replica_set, std::vector<const PodView*> active);
  void update_status(const ReplicaSetView& replica_set);

  Context& context_;
  WorkLoop loop_;
  EventRecorder events_;
};

}  // namespace rg::sim::cluster
