// ReplicaSetController (see replica_set_controller.hpp).
#include "sim/cluster/replica_set_controller.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <tuple>

#include "sim/cluster/json_fields.hpp"
#include "sim/cluster/pod_lifecycle.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

// At most this many pods are created or deleted per sync (the controller's burstReplicas).
constexpr std::size_t kBurstReplicas = 500;

int phase_rank(const std::string& phase) {
  if (phase == "Pending") return 0;
  if (phase == "Running") return 2;
  return 1;  // Unknown
}

// controller.ActivePodsWithRanks' order: the pod to delete first sorts first.
bool delete_before(const PodView* a, const PodView* b) {
  auto key = [](const PodView* pod) {
    return std::make_tuple(!pod->node_name.empty(), phase_rank(pod->phase), pod->ready);
  };
  if (key(a) != key(b)) return key(a) < key(b);
  if (a->ready && a->ready_since != b->ready_since) return a->ready_since > b->ready_since;
  if (a->restart_count != b->restart_count) return a->restart_count > b->restart_count;
  return a->created > b->created;
}

}  // namespace

ReplicaSetController::ReplicaSetController(Context& context)
    : context_(context),
      loop_(context.executor, "replicaset controller", context.options.retry_delay),
      events_(context, {"replicaset-controller", ""},
              controller_identity("replicaset-controller")) {
  context.caches.replica_sets.add_handler(
      [this](const ReplicaSetView* before, const ReplicaSetView* after) {
        loop_.add((after != nullptr ? after : before)->object->key());
      });
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    for (const auto* pod : {before, after})
      if (pod != nullptr && pod->controller && pod->controller->kind == "ReplicaSet")
        loop_.add(object_key(pod->object->namespace_, pod->controller->name));
  });
}

boost::asio::awaitable<void> ReplicaSetController::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

void ReplicaSetController::sync(const std::string& key) {
  auto replica_set = context_.caches.replica_sets.get(key);
  if (!replica_set) return;
  std::vector<const PodView*> active;
  for (const auto& pod_key :
       context_.caches.pods.indexed(context_.caches.pods_by_controller, replica_set->object->uid)) {
    auto pod = context_.caches.pods.get(pod_key);
    if (pod && pod->active()) active.push_back(pod.get());
  }
  manage_replicas(*replica_set, std::move(active));
  update_status(*replica_set);
}

void ReplicaSetController::manage_replicas(const ReplicaSetView& replica_set,
                                           std::vector<const PodView*> active) {
  const auto have = static_cast<std::int64_t>(active.size());
  if (have < replica_set.replicas) {
    // Pods made for a ReplicaSet deleted meanwhile (its cache can still hold it while the pods'
    // has seen the cascade) would stay: kube-sim does not model the garbage collector's
    // deletion of dependents whose owner is gone.
    if (!context_.store.holds(context_.types.replica_sets, *replica_set.object)) return;
    const auto missing = std::min<std::size_t>(replica_set.replicas - have, kBurstReplicas);
    const auto reference = reference_to("apps/v1", "ReplicaSet", *replica_set.object);
    for (std::size_t i = 0; i < missing; ++i) {
      auto pod = context_.store.create(context_.types.pods, pod_from_template(replica_set));
      context_.caches.pods.observe(pod);
      // controller_utils.go RealPodControl.createPods
      events_.event(reference, "Normal", "SuccessfulCreate", "Created pod: " + pod->name);
    }
    if (replica_set.replicas - have > static_cast<std::int64_t>(kBurstReplicas))
      loop_.add(replica_set.object->key());
  } else if (have > replica_set.replicas) {
    std::sort(active.begin(), active.end(), delete_before);
    const auto surplus = std::min<std::size_t>(have - replica_set.replicas, kBurstReplicas);
    // Copies: deleting updates the cache, which owns the views `active` points to.
    std::vector<PodView> doomed;
    for (std::size_t i = 0; i < surplus; ++i) doomed.push_back(*active[i]);
    const auto reference = reference_to("apps/v1", "ReplicaSet", *replica_set.object);
    for (const auto& pod : doomed) {
      delete_pod(context_, pod);
      // controller_utils.go RealPodControl.DeletePod
      events_.event(reference, "Normal", "SuccessfulDelete", "Deleted pod: " + pod.object->name);
    }
  }
}

void ReplicaSetController::update_status(const ReplicaSetView& replica_set) {
  std::int64_t replicas = 0;
  std::int64_t labeled = 0;
  std::int64_t ready = 0;
  const auto& template_labels = [&]() -> const json::object& {
    static const json::object kNone;
    const auto* metadata = find_object(replica_set.template_, "metadata");
    const auto* labels = metadata != nullptr ? find_object(*metadata, "labels") : nullptr;
    return labels != nullptr ? *labels : kNone;
  }();
  for (const auto& pod_key :
       context_.caches.pods.indexed(context_.caches.pods_by_controller, replica_set.object->uid)) {
    auto pod = context_.caches.pods.get(pod_key);
    if (!pod || !pod->active()) continue;
    ++replicas;
    bool all_labels = true;
    for (const auto& [label, value] : template_labels) {
      auto it = pod->object->labels.find(std::string_view(label));
      all_labels = all_labels && it != pod->object->labels.end() && value.is_string() &&
                   it->second == value.get_string();
    }
    if (all_labels) ++labeled;
    if (pod->ready) ++ready;
  }
  if (replica_set.status_replicas == replicas && replica_set.ready_replicas == ready &&
      replica_set.available_replicas == ready &&
      replica_set.observed_generation == replica_set.generation)
    return;
  const auto& rs = *replica_set.object;
  auto updated = context_.store.update(
      context_.types.replica_sets, rs.namespace_, rs.name,
      [&](const StoredObject& current, json::object object) {
        if (current.uid != rs.uid) return object;
        auto& status = object_at(object, "status");
        status["replicas"] = replicas;
        set_count(status, "fullyLabeledReplicas", labeled);
        set_count(status, "readyReplicas", ready);
        set_count(status, "availableReplicas", ready);  // minReadySeconds is not simulated
        set_count(status, "observedGeneration", replica_set.generation);
        return object;
      });
  context_.caches.replica_sets.observe(std::move(updated));
}

}  // namespace rg::sim::cluster
