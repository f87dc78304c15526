// ResourceTypes: the built-in resources kube-sim's own code names -- its controllers, eviction and
// namespace admission -- each looked up once in the resource table.
#pragma once

#include "sim/resource_table.hpp"

namespace rg::sim {

struct ResourceTypes {
  const ResourceType& pods;
  const ResourceType& nodes;
  const ResourceType& namespaces;
  const ResourceType& leases;
  const ResourceType& replica_sets;
  const ResourceType& deployments;
  const ResourceType& events;  ///< core/v1
  const ResourceType& pod_disruption_budgets;

  static const ResourceTypes& builtin();
};

}  // namespace rg::sim
