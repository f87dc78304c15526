// DeploymentController (see deployment_controller.hpp).
#include "sim/cluster/deployment_controller.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "sim/cluster/int_or_percent.hpp"
#include "sim/cluster/json_fields.hpp"
#include "sim/cluster/pod_template_hash.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

constexpr std::string_view kRevision = "deployment.kubernetes.io/revision";
constexpr std::string_view kRevisionHistory = "deployment.kubernetes.io/revision-history";
constexpr std::string_view kHashLabel = "pod-template-hash";

// maxSurge/maxUnavailable, 25% when absent (the apps/v1 defaults).
std::int64_t resolve(const json::value& value, std::int64_t total, bool round_up) {
  return scaled_value(value.is_null() ? json::value("25%") : value, total, round_up);
}

// The template without the pod-template-hash label: what "the same template" compares.
std::string template_identity(const json::object& pod_template) {
  json::object copy = pod_template;
  if (auto* metadata = copy.if_contains("metadata"); metadata && metadata->is_object())
    if (auto* labels = metadata->get_object().if_contains("labels"); labels && labels->is_object())
      labels->get_object().erase(kHashLabel);
  return canonical_json(copy);
}

// A Deployment condition (with lastUpdateTime, which moves whenever the condition changes).
void set_deployment_condition(json::array& conditions, std::string_view type,
                              std::string_view status, std::string_view reason,
                              std::string_view message, const std::string& now) {
  if (set_condition(conditions, type, status, reason, message, now))
    (*find_condition(conditions, type))["lastUpdateTime"] = now;
}

}  // namespace

RolloutBudget rollout_budget(const DeploymentView& deployment) {
  if (deployment.strategy != "RollingUpdate") return {0, 0};
  RolloutBudget budget{resolve(deployment.max_surge, deployment.replicas, true),
                       resolve(deployment.max_unavailable, deployment.replicas, false)};
  if (budget.max_unavailable > deployment.replicas) budget.max_unavailable = deployment.replicas;
  if (budget.max_surge == 0 && budget.max_unavailable == 0) budget.max_unavailable = 1;
  return budget;
}

// The Deployment's annotations its ReplicaSets carry too (kubernetes.io/change-cause, read by
// `kubectl rollout history`), as copyDeploymentAnnotationsToReplicaSet in
// pkg/controller/deployment/util/deployment_util.go: all but its own bookkeeping. Returns whether
// `rs_annotations` changed.
bool copy_deployment_annotations(const json::object& deployment, json::object& rs_annotations) {
  static constexpr std::array<std::string_view, 6> kSkipped = {
      "kubectl.kubernetes.io/last-applied-configuration",
      kRevision,
      kRevisionHistory,
      "deployment.kubernetes.io/desired-replicas",
      "deployment.kubernetes.io/max-replicas",
      "deprecated.deployment.rollback.to"};
  bool changed = false;
  for (const auto& [key, value] : deployment) {
    if (std::find(kSkipped.begin(), kSkipped.end(), key) != kSkipped.end()) continue;
    const auto* current = rs_annotations.if_contains(key);
    if (current != nullptr && *current == value) continue;
    rs_annotations[key] = value;
    changed = true;
  }
  return changed;
}

json::object new_replica_set(const DeploymentView& deployment, std::int64_t replicas,
                             std::int64_t revision) {
  const auto& d = *deployment.object;
  const std::string hash = pod_template_hash(deployment.template_, deployment.collision_count);
  const std::string name = d.name + "-" + hash;
  json::object pod_template = deployment.template_;
  object_at(object_at(pod_template, "metadata"), "labels")[kHashLabel] = hash;
  json::object selector = deployment.selector;
  object_at(selector, "matchLabels")[kHashLabel] = hash;
  json::object labels = object_at(object_at(pod_template, "metadata"), "labels");
  const auto budget = rollout_budget(deployment);
  json::object annotations{
      {"deployment.kubernetes.io/desired-replicas", std::to_string(deployment.replicas)},
      {"deployment.kubernetes.io/max-replicas",
       std::to_string(deployment.replicas + budget.max_surge)},
      {kRevision, std::to_string(revision)}};
  copy_deployment_annotations(deployment.annotations, annotations);
  return json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       json::object{{"name", name},
                    {"namespace", d.namespace_},
                    {"generation", 1},
                    {"labels", std::move(labels)},
                    {"annotations", std::move(annotations)},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                                 {"kind", "Deployment"},
                                                                 {"name", d.name},
                                                                 {"uid", d.uid},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"spec", json::object{{"replicas", replicas},
                            {"selector", std::move(selector)},
                            {"template", std::move(pod_template)}}},
      {"status", json::object{{"replicas", 0}}}};
}

DeploymentController::DeploymentController(Context& context)
    : context_(context),
      loop_(context.executor, "deployment controller", context.options.retry_delay),
      events_(context, {"deployment-controller", ""},
              controller_identity("deployment-controller")) {
  context.caches.deployments.add_handler(
      [this](const DeploymentView* before, const DeploymentView* after) {
        loop_.add((after != nullptr ? after : before)->object->key());
      });
  context.caches.replica_sets.add_handler(
      [this](const ReplicaSetView* before, const ReplicaSetView* after) {
        for (const auto* rs : {before, after})
          if (rs != nullptr && rs->controller && rs->controller->kind == "Deployment")
            loop_.add(object_key(rs->object->namespace_, rs->controller->name));
      });
}

boost::asio::awaitable<void> DeploymentController::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

std::vector<DeploymentController::ReplicaSetPtr> DeploymentController::owned_replica_sets(
    const DeploymentView& deployment) const {
  std::vector<ReplicaSetPtr> owned;
  const auto& caches = context_.caches;
  for (const auto& key :
       caches.replica_sets.indexed(caches.replica_sets_by_controller, deployment.object->uid))
    if (auto rs = caches.replica_sets.get(key)) owned.push_back(std::move(rs));
  // Oldest first, as the controller scales old ReplicaSets down.
  std::sort(owned.begin(), owned.end(), [](const auto& a, const auto& b) {
    return a->revision != b->revision ? a->revision < b->revision
                                      : a->object->resource_version < b->object->resource_version;
  });
  return owned;
}

void DeploymentController::sync(const std::string& key) {
  auto deployment = context_.caches.deployments.get(key);
  if (!deployment) return;
  const std::string identity = template_identity(deployment->template_);
  ReplicaSetPtr new_rs;
  std::vector<ReplicaSetPtr> old;
  std::int64_t max_old_revision = 0;
  for (auto& rs : owned_replica_sets(*deployment)) {
    if (!new_rs && template_identity(rs->template_) == identity) {
      new_rs = std::move(rs);
    } else {
      max_old_revision = std::max(max_old_revision, rs->revision);
      old.push_back(std::move(rs));
    }
  }
  const std::int64_t desired = deployment->replicas;
  bool created = false;
  if (deployment->paused) {
    // Paused: scaling only, no rollout.
    std::vector<ReplicaSetPtr> active;
    for (const auto& rs : old)
      if (rs->replicas > 0) active.push_back(rs);
    if (new_rs && active.empty())
      scale(*new_rs, desired, *deployment);
    else if (!new_rs && active.size() == 1)
      scale(*active.front(), desired, *deployment);
  } else {
    if (!new_rs) {
      // A ReplicaSet made for a Deployment deleted meanwhile (its cache can still hold it while
      // the ReplicaSets' has seen the cascade) would stay: kube-sim does not model the garbage
      // collector's deletion of dependents whose owner is gone.
      if (!context_.store.holds(context_.types.deployments, *deployment->object)) return;
      bool old_active = false;
      for (const auto& rs : old) old_active = old_active || rs->replicas > 0;
      std::int64_t initial = desired;
      if (old_active && deployment->strategy == "Recreate") {
        initial = 0;
      } else if (old_active) {
        std::int64_t total = 0;
        for (const auto& rs : old) total += rs->replicas;
        initial = std::clamp(desired + rollout_budget(*deployment).max_surge - total,
                             std::int64_t{0}, desired);
      }
      new_rs = create_replica_set(*deployment, initial, max_old_revision + 1);
      created = true;
    } else {
      new_rs = update_new_replica_set(*deployment, new_rs, max_old_revision + 1);
    }
    roll(*deployment, *new_rs, old);
  }
  auto refreshed = context_.caches.deployments.get(key);
  if (refreshed) update_status(*refreshed, created);
}

void DeploymentController::roll(const DeploymentView& deployment, const ReplicaSetView& new_rs,
                                const std::vector<ReplicaSetPtr>& old) {
  const std::int64_t desired = deployment.replicas;
  auto& caches = context_.caches;
  if (deployment.strategy == "Recreate") {
    bool old_running = false;
    for (const auto& rs : old) {
      if (rs->replicas > 0) scale(*rs, 0, deployment);
      old_running = old_running || rs->status_replicas > 0;
    }
    if (!old_running && new_rs.replicas != desired) scale(new_rs, desired, deployment);
    return;
  }
  const auto budget = rollout_budget(deployment);
  std::int64_t total = new_rs.replicas;
  for (const auto& rs : old) total += rs->replicas;
  // Scale the new ReplicaSet up within the surge, or down to the desired count.
  std::int64_t new_replicas = new_rs.replicas;
  if (new_replicas > desired) {
    new_replicas = desired;
  } else if (new_replicas < desired && total < desired + budget.max_surge) {
    new_replicas += std::min(desired + budget.max_surge - total, desired - new_replicas);
  }
  if (new_replicas != new_rs.replicas) {
    total += new_replicas - new_rs.replicas;
    scale(new_rs, new_replicas, deployment);
  }
  // Scale old ReplicaSets down while enough pods stay available (reconcileOldReplicaSets).
  auto new_view = caches.replica_sets.get(new_rs.object->key());
  const std::int64_t new_available = new_view ? new_view->available_replicas : 0;
  const std::int64_t min_available = desired - budget.max_unavailable;
  std::int64_t can_remove = total - min_available - (new_replicas - new_available);
  if (can_remove <= 0) return;
  // First the old pods that are not available anyway.
  std::vector<std::pair<ReplicaSetPtr, std::int64_t>> targets;
  targets.reserve(old.size());
  for (const auto& rs : old) targets.emplace_back(rs, rs->replicas);
  for (auto& [rs, target] : targets) {
    const std::int64_t unhealthy = std::max<std::int64_t>(target - rs->available_replicas, 0);
    const std::int64_t cut = std::min(unhealthy, can_remove);
    target -= cut;
    can_remove -= cut;
  }
  // Then available ones, as long as the available total stays at min_available.
  std::int64_t available = new_available;
  for (const auto& [rs, target] : targets) available += std::min(rs->available_replicas, target);
  std::int64_t surplus = available - min_available;
  for (auto& [rs, target] : targets) {
    if (surplus <= 0) break;
    const std::int64_t cut = std::min(target, surplus);
    target -= cut;
    surplus -= cut;
  }
  for (const auto& [rs, target] : targets)
    if (target != rs->replicas) scale(*rs, target, deployment);
}

DeploymentController::ReplicaSetPtr DeploymentController::create_replica_set(
    const DeploymentView& deployment, std::int64_t replicas, std::int64_t revision) {
  const auto& d = *deployment.object;
  json::object rs = new_replica_set(deployment, replicas, revision);
  ObjectPtr stored;
  try {
    stored = context_.store.create(context_.types.replica_sets, std::move(rs));
  } catch (const std::exception&) {
    // A ReplicaSet of that name with another template: count the collision, hash again.
    auto bumped = context_.store.update(context_.types.deployments, d.namespace_, d.name,
                                        [&](const StoredObject&, json::object object) {
                                          auto& status = object_at(object, "status");
                                          status["collisionCount"] =
                                              int_at(status, "collisionCount") + 1;
                                          return object;
                                        });
    context_.caches.deployments.observe(std::move(bumped));
    throw;
  }
  context_.caches.replica_sets.observe(stored);
  // sync.go getNewReplicaSet
  if (replicas > 0)
    events_.event(reference_to("apps/v1", "Deployment", d), "Normal", "ScalingReplicaSet",
                  fmt::format("Scaled up replica set {} from 0 to {}", stored->name, replicas));
  return context_.caches.replica_sets.get(stored->key());
}

DeploymentController::ReplicaSetPtr DeploymentController::update_new_replica_set(
    const DeploymentView& deployment, const ReplicaSetPtr& replica_set, std::int64_t new_revision) {
  // As SetNewReplicaSetAnnotations (pkg/controller/deployment/util/deployment_util.go): the
  // Deployment's annotations are copied; an old template back (`kubectl rollout undo`) makes its
  // ReplicaSet the newest revision, the revision it had joining revision-history.
  json::object wanted = replica_set->annotations;
  const bool copied = copy_deployment_annotations(deployment.annotations, wanted);
  if (!copied && replica_set->revision >= new_revision) return replica_set;
  const auto& rs = *replica_set->object;
  auto updated = context_.store.update(
      context_.types.replica_sets, rs.namespace_, rs.name,
      [&](const StoredObject&, json::object object) {
        auto& annotations = object_at(object_at(object, "metadata"), "annotations");
        copy_deployment_annotations(deployment.annotations, annotations);
        const std::string old_revision = string_at(annotations, kRevision);
        std::int64_t old = 0;
        try {
          old = std::stoll(old_revision);
        } catch (const std::exception&) {
        }
        if (old < new_revision) {
          if (!old_revision.empty()) {
            const std::string history = string_at(annotations, kRevisionHistory);
            annotations[kRevisionHistory] =
                history.empty() ? old_revision : history + "," + old_revision;
          }
          annotations[kRevision] = std::to_string(new_revision);
        }
        return object;
      });
  context_.caches.replica_sets.observe(updated);
  return context_.caches.replica_sets.get(updated->key());
}

void DeploymentController::scale(const ReplicaSetView& replica_set, std::int64_t replicas,
                                 const DeploymentView& deployment) {
  const auto& rs = *replica_set.object;
  const auto budget = rollout_budget(deployment);
  std::int64_t old_scale = -1;  // stays -1 when the size needs no update
  auto updated = context_.store.update(context_.types.replica_sets, rs.namespace_, rs.name,
                                       [&](const StoredObject&, json::object object) {
                                         auto& spec = object_at(object, "spec");
                                         if (int_at(spec, "replicas", 1) == replicas) return object;
                                         old_scale = int_at(spec, "replicas", 1);
                                         spec["replicas"] = replicas;
                                         auto& metadata = object_at(object, "metadata");
                                         metadata["generation"] =
                                             int_at(metadata, "generation") + 1;
                                         auto& annotations = object_at(metadata, "annotations");
                                         annotations["deployment.kubernetes.io/desired-replicas"] =
                                             std::to_string(deployment.replicas);
                                         annotations["deployment.kubernetes.io/max-replicas"] =
                                             std::to_string(deployment.replicas + budget.max_surge);
                                         return object;
                                       });
  context_.caches.replica_sets.observe(std::move(updated));
  // sync.go scaleReplicaSet
  if (old_scale >= 0)
    events_.event(reference_to("apps/v1", "Deployment", *deployment.object), "Normal",
                  "ScalingReplicaSet",
                  fmt::format("Scaled {} replica set {} from {} to {}",
                              old_scale < replicas ? "up" : "down", rs.name, old_scale, replicas));
}

void DeploymentController::update_status(const DeploymentView& deployment, bool created_new_rs) {
  const std::string identity = template_identity(deployment.template_);
  std::int64_t spec_total = 0, replicas = 0, updated = 0, ready = 0, available = 0;
  std::int64_t revision = 0;
  std::string new_rs_name;
  for (const auto& rs : owned_replica_sets(deployment)) {
    spec_total += rs->replicas;
    replicas += rs->status_replicas;
    ready += rs->ready_replicas;
    available += rs->available_replicas;
    if (new_rs_name.empty() && template_identity(rs->template_) == identity) {
      new_rs_name = rs->object->name;
      updated = rs->status_replicas;
      revision = rs->revision;
    }
  }
  const std::int64_t desired = deployment.replicas;
  const auto budget = rollout_budget(deployment);
  const std::string now = now_time();
  const auto& d = *deployment.object;
  auto written = context_.store.update(
      context_.types.deployments, d.namespace_, d.name,
      [&](const StoredObject& current, json::object object) {
        if (current.uid != d.uid) return object;
        if (revision > 0)
          object_at(object_at(object, "metadata"), "annotations")[kRevision] =
              std::to_string(revision);
        auto& status = object_at(object, "status");
        status["observedGeneration"] = deployment.generation;
        set_count(status, "replicas", replicas);
        set_count(status, "updatedReplicas", updated);
        set_count(status, "readyReplicas", ready);
        set_count(status, "availableReplicas", available);
        set_count(status, "unavailableReplicas", std::max<std::int64_t>(spec_total - available, 0));
        auto& conditions = array_at(status, "conditions");
        if (available >= desired - budget.max_unavailable)
          set_deployment_condition(conditions, "Available", "True", "MinimumReplicasAvailable",
                                   "Deployment has minimum availability.", now);
        else
          set_deployment_condition(conditions, "Available", "False", "MinimumReplicasUnavailable",
                                   "Deployment does not have minimum availability.", now);
        const bool complete = !new_rs_name.empty() && updated == desired && replicas == desired &&
                              available == desired;
        if (deployment.paused)
          set_deployment_condition(conditions, "Progressing", "Unknown", "DeploymentPaused",
                                   "Deployment is paused", now);
        else if (complete)
          set_deployment_condition(
              conditions, "Progressing", "True", "NewReplicaSetAvailable",
              fmt::format("ReplicaSet \"{}\" has successfully progressed.", new_rs_name), now);
        else if (created_new_rs)
          set_deployment_condition(conditions, "Progressing", "True", "NewReplicaSetCreated",
                                   fmt::format("Created new replica set \"{}\"", new_rs_name), now);
        else if (!new_rs_name.empty())
          set_deployment_condition(conditions, "Progressing", "True", "ReplicaSetUpdated",
                                   fmt::format("ReplicaSet \"{}\" is progressing.", new_rs_name),
                                   now);
        return object;
      });
  context_.caches.deployments.observe(std::move(written));
}

}  // namespace rg::sim::cluster
