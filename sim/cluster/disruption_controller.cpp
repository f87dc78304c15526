// DisruptionController (see disruption_controller.hpp).
#include "sim/cluster/disruption_controller.hpp"

#include <fmt/format.h>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "client/model/time.hpp"
#include "sim/cluster/int_or_percent.hpp"
#include "sim/cluster/json_fields.hpp"
#include "sim/resource_types.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

namespace {

// An evicted pod not deleted within this long counts again (disruption.go DeletionTimeout).
constexpr auto kDeletionTimeout = std::chrono::minutes(2);

// The pods of `namespace_` (cache keys are "namespace/name", sorted).
template <class Visit>
void for_each_pod_in(const Informer<PodView>& pods, const std::string& namespace_, Visit visit) {
  const std::string prefix = namespace_ + "/";
  const auto& items = pods.items();
  for (auto it = items.lower_bound(prefix); it != items.end() && it->first.starts_with(prefix);
       ++it)
    visit(*it->second);
}

// getExpectedScale: the sum of the replicas of the pods' controllers (a ReplicaSet's, or the
// Deployment's that controls it); pods without a controller are not counted.
std::int64_t expected_scale(const Caches& caches, const std::vector<const PodView*>& pods,
                            const std::string& namespace_) {
  std::map<std::string, std::int64_t> scale_by_controller;
  for (const auto* pod : pods) {
    if (!pod->controller) continue;
    std::optional<std::pair<std::string, std::int64_t>> found;
    if (pod->controller->kind == "ReplicaSet") {
      auto rs = caches.replica_sets.get(namespace_, pod->controller->name);
      if (rs && rs->object->uid == pod->controller->uid) {
        found.emplace(rs->object->uid, rs->replicas);
        if (rs->controller && rs->controller->kind == "Deployment")
          if (auto d = caches.deployments.get(namespace_, rs->controller->name);
              d && d->object->uid == rs->controller->uid)
            found.emplace(d->object->uid, d->replicas);
      }
    }
    if (!found)
      throw std::runtime_error(
          fmt::format("found no controllers for pod \"{}\"", pod->object->name));
    scale_by_controller.insert(*found);
  }
  std::int64_t total = 0;
  for (const auto& [uid, scale] : scale_by_controller) total += scale;
  return total;
}

void set_disruption_allowed(json::object& status, std::int64_t allowed, std::string_view reason,
                            std::string_view message) {
  auto& conditions = array_at(status, "conditions");
  set_condition(conditions, "DisruptionAllowed", allowed > 0 ? "True" : "False", reason, message,
                now_time());
  auto* condition = find_condition(conditions, "DisruptionAllowed");
  (*condition)["observedGeneration"] = status["observedGeneration"];
  (*condition)["message"] = message;
}

}  // namespace

PodDisruptionBudgetView PodDisruptionBudgetView::from(ObjectPtr object) {
  PodDisruptionBudgetView view;
  const json::object budget = object->parse();
  const auto* metadata = find_object(budget, "metadata");
  view.generation = metadata != nullptr ? int_at(*metadata, "generation") : 0;
  if (const auto* spec = find_object(budget, "spec")) {
    if (const auto* selector = find_object(*spec, "selector")) {
      try {
        // An empty selector matches no pod here (getPodsForPdb), unlike elsewhere.
        auto parsed = client::LabelSelector::from_json(*selector);
        if (!parsed.empty()) view.selector = std::move(parsed);
      } catch (const std::exception&) {
        // Invalid: matches nothing.
      }
    }
    if (const auto* min = spec->if_contains("minAvailable")) view.min_available = *min;
    if (const auto* max = spec->if_contains("maxUnavailable")) view.max_unavailable = *max;
  }
  if (const auto* status = find_object(budget, "status")) view.status = *status;
  view.object = std::move(object);
  return view;
}

DisruptionController::DisruptionController(Context& context)
    : context_(context),
      budgets_(context.store, context.types.pod_disruption_budgets),
      loop_(context.executor, "disruption controller", context.options.retry_delay) {
  budgets_.add_handler(
      [this](const PodDisruptionBudgetView* before, const PodDisruptionBudgetView* after) {
        loop_.add((after != nullptr ? after : before)->object->key());
      });
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    for (const auto* pod : {before, after})
      if (pod != nullptr) enqueue_budgets(pod->object->namespace_, &pod->object->labels);
  });
  // Scale changes move expectedPods of percentage and maxUnavailable budgets.
  context.caches.replica_sets.add_handler(
      [this](const ReplicaSetView* before, const ReplicaSetView* after) {
        enqueue_budgets((after != nullptr ? after : before)->object->namespace_);
      });
  context.caches.deployments.add_handler(
      [this](const DeploymentView* before, const DeploymentView* after) {
        enqueue_budgets((after != nullptr ? after : before)->object->namespace_);
      });
}

boost::asio::awaitable<void> DisruptionController::run() {
  using namespace boost::asio::experimental::awaitable_operators;
  budgets_.start();
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await (budgets_.run() && loop_.run(sync));
}

void DisruptionController::enqueue_budgets(const std::string& namespace_,
                                           const client::Labels* labels) {
  const std::string prefix = namespace_ + "/";
  const auto& items = budgets_.items();
  for (auto it = items.lower_bound(prefix); it != items.end() && it->first.starts_with(prefix);
       ++it)
    if (labels == nullptr || it->second->selector.matches(*labels)) loop_.add(it->first);
}

void DisruptionController::sync(const std::string& key) {
  auto budget = budgets_.get(key);
  if (!budget) return;
  const auto& object = *budget->object;
  const auto now = std::chrono::system_clock::now();

  std::vector<const PodView*> pods;
  for_each_pod_in(context_.caches.pods, object.namespace_, [&](const PodView& pod) {
    if (budget->selector.matches(pod.object->labels)) pods.push_back(&pod);
  });

  json::object status;
  status["observedGeneration"] = budget->generation;
  std::int64_t expected = 0, desired = 0;
  try {
    if (!budget->max_unavailable.is_null()) {
      expected = expected_scale(context_.caches, pods, object.namespace_);
      desired = std::max<std::int64_t>(
          0, expected - scaled_value(budget->max_unavailable, expected, true));
    } else if (budget->min_available.is_int64()) {
      desired = budget->min_available.get_int64();
      expected = static_cast<std::int64_t>(pods.size());
    } else if (is_percent(budget->min_available)) {
      expected = expected_scale(context_.caches, pods, object.namespace_);
      desired = scaled_value(budget->min_available, expected, true);
    }
  } catch (const std::exception& e) {
    // failSafe: no disruption allowed while the budget cannot be computed.
    status = budget->status;
    status["disruptionsAllowed"] = 0;
    set_disruption_allowed(status, 0, "SyncFailed", e.what());
    auto written =
        context_.store.update(context_.types.pod_disruption_budgets, object.namespace_, object.name,
                              [&](const StoredObject&, json::object current) {
                                current["status"] = status;
                                return current;
                              });
    budgets_.observe(std::move(written));
    return;
  }

  // buildDisruptedPodMap: evictions recorded by the Eviction API, until the pod is deleted or
  // the deletion timeout passed; a recheck when the earliest one expires.
  json::object disrupted;
  std::optional<std::chrono::system_clock::time_point> recheck;
  const auto* recorded = find_object(budget->status, "disruptedPods");
  std::int64_t healthy = 0;
  for (const auto* pod : pods) {
    if (pod->deleting) continue;
    bool evicted = false;
    if (recorded != nullptr)
      if (const auto* at = recorded->if_contains(pod->object->name); at && at->is_string())
        if (auto when = client::parse_rfc3339(at->get_string())) {
          const auto expires = *when + kDeletionTimeout;
          if (expires > now) {
            disrupted[pod->object->name] = *at;
            evicted = true;
            if (!recheck || expires < *recheck) recheck = expires;
          }
        }
    if (!evicted && pod->ready) ++healthy;
  }
  const std::int64_t allowed = expected > 0 ? std::max<std::int64_t>(0, healthy - desired) : 0;

  status["currentHealthy"] = healthy;
  status["desiredHealthy"] = desired;
  status["expectedPods"] = expected;
  status["disruptionsAllowed"] = allowed;
  if (!disrupted.empty()) status["disruptedPods"] = disrupted;
  if (const auto* conditions = budget->status.if_contains("conditions"))
    status["conditions"] = *conditions;
  set_disruption_allowed(status, allowed, allowed > 0 ? "SufficientPods" : "InsufficientPods", "");

  if (status != budget->status) {
    auto written =
        context_.store.update(context_.types.pod_disruption_budgets, object.namespace_, object.name,
                              [&](const StoredObject& stored, json::object current) {
                                if (stored.uid != object.uid) return current;
                                current["status"] = status;
                                return current;
                              });
    budgets_.observe(std::move(written));
  }
  if (recheck)
    loop_.add_at(key, WorkLoop::Clock::now() +
                          std::chrono::duration_cast<WorkLoop::Clock::duration>(*recheck - now));
}

}  // namespace rg::sim::cluster
