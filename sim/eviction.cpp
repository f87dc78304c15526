// Eviction (see eviction.hpp).
#include "sim/eviction.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <vector>

#include "client/labels/label_selector.hpp"
#include "client/model/time.hpp"
#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"
#include "sim/resource_types.hpp"

namespace rg::sim {
namespace json = boost::json;

namespace {

// MaxDisruptedPodSize: evictions the disruption controller has not confirmed yet.
constexpr std::size_t kMaxDisruptedPods = 2000;
constexpr std::string_view kCannotEvict =
    "Cannot evict pod as it would violate the pod's disruption budget.";

ApiError too_many_requests(int retry_after_seconds, std::string cause) {
  client::Status status;
  status.status = "Failure";
  status.code = 429;
  status.reason = "TooManyRequests";
  status.message = std::string(kCannotEvict);
  client::StatusDetails details;
  details.retry_after_seconds = retry_after_seconds;
  details.causes.push_back({"DisruptionBudget", std::move(cause), ""});
  status.details = std::move(details);
  return ApiError(std::move(status));
}

ApiError forbidden(std::string_view budget, std::string_view why) {
  client::Status status;
  status.status = "Failure";
  status.code = 403;
  status.reason = "Forbidden";
  status.message = fmt::format("poddisruptionbudgets.policy \"{}\" is forbidden: {}", budget, why);
  status.details =
      client::StatusDetails{std::string(budget), "policy", "poddisruptionbudgets", "", {}, 0};
  return ApiError(std::move(status));
}

json::object status_json(const client::Status& status) {
  return client::to_json(status).as_object();
}

bool pod_ready(const json::object& pod) {
  const auto* status = find_object(pod, "status");
  const auto* conditions = status != nullptr ? find_array(*status, "conditions") : nullptr;
  const auto* ready = conditions != nullptr ? find_condition(*conditions, "Ready") : nullptr;
  return ready != nullptr && string_at(*ready, "status") == "True";
}

std::int64_t status_int(const json::object& budget, std::string_view key) {
  const auto* status = find_object(budget, "status");
  return status != nullptr ? int_at(*status, key) : 0;
}

// The budgets of the pod's namespace whose (non-empty) selector matches its labels.
std::vector<ObjectPtr> budgets_of(Store& store, const StoredObject& pod) {
  std::vector<ObjectPtr> matching;
  const auto budgets = store.list(ResourceTypes::builtin().pod_disruption_budgets, pod.namespace_);
  for (const auto& item : budgets->items) {
    const auto budget = item->parse();
    const auto* spec = find_object(budget, "spec");
    const auto* selector = spec != nullptr ? spec->if_contains("selector") : nullptr;
    if (selector == nullptr) continue;
    try {
      const auto parsed = client::LabelSelector::from_json(*selector);
      if (!parsed.empty() && parsed.matches(pod.labels)) matching.push_back(item);
    } catch (const std::exception&) {
      // An invalid selector matches no pod.
    }
  }
  return matching;
}

}  // namespace

json::object evict(Registry& registry, Store& store, std::string_view namespace_,
                   std::string_view name, const json::object& eviction, bool dry_run) {
  const auto* metadata = find_object(eviction, "metadata");
  if (metadata == nullptr || string_at(*metadata, "name") != name)
    throw errors::bad_request("name in URL does not match name in Eviction object");
  DeleteOptions options;
  std::optional<bool> orphan;
  if (const auto* body = find_object(eviction, "deleteOptions"))
    read_delete_options(*body, options, orphan);
  if (orphan.value_or(false)) options.propagation_policy = "Orphan";
  options.dry_run = options.dry_run || dry_run;

  const auto& pods = ResourceTypes::builtin().pods;
  const auto stored = registry.read(pods, namespace_, name);
  const auto pod = stored->parse();
  const auto* pod_status = find_object(pod, "status");
  const std::string phase = pod_status != nullptr ? string_at(*pod_status, "phase") : "";
  const bool terminating = find_object(pod, "metadata")->contains("deletionTimestamp");
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  client::Status success;
  success.status = "Success";
  success.code = 201;

  // canIgnorePDB: the disruption already happened (or the pod never served).
  if (terminal || terminating || phase == "Pending") {
    // shouldEnforceResourceVersion: a Pending pod must not have become Ready meanwhile.
    if (!terminal && !terminating && !options.precondition_resource_version)
      options.precondition_resource_version = std::to_string(stored->resource_version);
    registry.remove(pods, namespace_, name, options);
    return status_json(success);
  }

  const auto budgets = budgets_of(store, *stored);
  if (budgets.size() > 1) {
    client::Status several;
    several.status = "Failure";
    several.code = 500;
    several.message =
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
        "not support.";
    return status_json(several);
  }
  bool guard_resource_version = false;
  std::string budget_name;
  if (budgets.size() == 1) {
    const auto& budget = *budgets.front();
    budget_name = budget.name;
    const auto current = budget.parse();
    const auto* spec = find_object(current, "spec");
    const bool always_allow =
        spec != nullptr && string_at(*spec, "unhealthyPodEvictionPolicy") == "AlwaysAllow";
    const auto healthy = status_int(current, "currentHealthy");
    const auto desired = status_int(current, "desiredHealthy");
    if (!pod_ready(pod) && (always_allow || (healthy >= desired && desired > 0))) {
      // Not Ready, so not counted as healthy: no decrement, but the pod must stay not Ready.
      guard_resource_version = true;
    } else {
      // checkAndDecrement, atomically with the budget's current state.
      store.update(
          ResourceTypes::builtin().pod_disruption_budgets, budget.namespace_, budget.name,
          [&](const StoredObject&, json::object object) {
            const auto generation = int_at(object_at(object, "metadata"), "generation");
            auto& status = object_at(object, "status");
            if (int_at(status, "observedGeneration") < generation)
              throw too_many_requests(
                  10, fmt::format("The disruption budget {} is still being processed by the "
                                  "server.",
                                  budget.name));
            const auto allowed = int_at(status, "disruptionsAllowed");
            if (allowed < 0) throw forbidden(budget.name, "pdb disruptions allowed is negative");
            auto& disrupted = object_at(status, "disruptedPods");
            if (disrupted.size() > kMaxDisruptedPods)
              throw forbidden(budget.name,
                              "DisruptedPods map too big - too many evictions not confirmed by "
                              "PDB controller");
            if (allowed == 0)
              throw too_many_requests(
                  0, fmt::format("The disruption budget {} needs {} healthy pods and has {} "
                                 "currently",
                                 budget.name, int_at(status, "desiredHealthy"),
                                 int_at(status, "currentHealthy")));
            status["disruptionsAllowed"] = allowed - 1;
            disrupted[name] = client::format_time(std::chrono::system_clock::now());
            return object;
          },
          options.dry_run);
    }
  }

  if (guard_resource_version && !options.precondition_resource_version)
    options.precondition_resource_version = std::to_string(stored->resource_version);
  try {
    registry.remove(pods, namespace_, name, options);
  } catch (const ApiError& e) {
    // The pod changed (became Ready?) since it was judged: let the client retry.
    if (e.code() == 409 && guard_resource_version)
      throw too_many_requests(
          10, fmt::format("The disruption budget {} is still being processed by the server.",
                          budget_name));
    throw;
  }
  return status_json(success);
}

}  // namespace rg::sim
