// DisruptionController: keeps every PodDisruptionBudget's status as kube-controller-manager's
// disruption controller does (pkg/controller/disruption/disruption.go): the pods its selector
// matches (an empty selector matches none), expectedPods and desiredHealthy from minAvailable or
// maxUnavailable (a percentage or maxUnavailable scales with the pods' controllers' replicas:
// a ReplicaSet's, or its Deployment's), currentHealthy (Ready, not terminating, not recently
// evicted), disruptionsAllowed, the disruptedPods the Eviction API recorded (dropped once the pod
// is deleted or 2 minutes passed) and the DisruptionAllowed condition. A pod whose controller it
// cannot scale fails the sync safe: disruptionsAllowed 0, condition reason SyncFailed. The
// Eviction API (sim/eviction.hpp) reads and decrements what this writes.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

#include "client/labels/label_selector.hpp"
#include "sim/cluster/caches.hpp"
#include "sim/cluster/informer.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

struct PodDisruptionBudgetView {
  ObjectPtr object;
  std::int64_t generation = 0;
  client::LabelSelector selector = client::LabelSelector::nothing();
  boost::json::value min_available;    ///< null when absent
  boost::json::value max_unavailable;  ///< null when absent
  boost::json::object status;

  static PodDisruptionBudgetView from(ObjectPtr object);
};

class DisruptionController {
 public:
  explicit DisruptionController(Context& context);
  boost::asio::awaitable<void> run();

 private:
  void sync(const std::string& key);
  /// Queues every budget in `namespace_` (whose selector matches `labels`, when given).
  void enqueue_budgets(const std::string& namespace_, const client::Labels* labels = nullptr);

  Context& context_;
  Informer<PodDisruptionBudgetView> budgets_;
  WorkLoop loop_;
};

}  // namespace rg::sim::cluster
