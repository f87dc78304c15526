// Eviction: POST pods/NAME/eviction (policy/v1 Eviction), the API server's EvictionREST
// (pkg/registry/core/pod/storage/eviction.go): deletes the pod unless a PodDisruptionBudget
// forbids it. A pod that is Pending, finished or already terminating is deleted without a
// budget check; more than one matching budget is a 500; a budget whose status lags its
// generation, or that allows no disruption, is 429 TooManyRequests with a DisruptionBudget
// cause (kubectl drain retries every 5 s); otherwise disruptionsAllowed is decremented and the pod
// recorded in status.disruptedPods (the disruption controller stops counting it as healthy) before
// the pod is deleted with the Eviction's deleteOptions. A not-Ready pod is deleted without a
// decrement when the budget is met or its unhealthyPodEvictionPolicy is AlwaysAllow.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "sim/registry.hpp"

namespace rg::sim {

/// Evicts pod `name` of `namespace_` as `eviction` (the request body) asks; `dry_run` from the
/// query. Returns the metav1.Status to answer (201 Success, or the 500 of several budgets);
/// throws ApiError for the other refusals.
boost::json::object evict(Registry& registry, Store& store, std::string_view namespace_,
                          std::string_view name, const boost::json::object& eviction, bool dry_run);

}  // namespace rg::sim
