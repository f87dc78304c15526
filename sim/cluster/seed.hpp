// Seeding: a cluster's starting state written straight into the Store -- realistic Ready
// worker nodes, and Deployments with their ReplicaSets and already running, Ready pods,
// consistent in every field the controllers read (template hash, owner references, status
// counts), so the controllers find nothing to do and a 100k-pod cluster seeds in seconds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/object_store.hpp"

namespace rg::sim {

struct DeploymentSeed {
  std::string namespace_ = "default";
  std::string name_prefix = "app";  ///< Deployments "<prefix>-1", "<prefix>-2", ...
  std::size_t deployments = 1;
  std::size_t pods_per_deployment = 3;
  std::string image = "registry.example/web:1.27.3";
};

/// Creates Ready worker nodes "node-1" .. "node-<count>" (names that exist are skipped);
/// returns the names created.
std::vector<std::string> seed_nodes(Store& store, std::size_t count = 3,
                                    const std::string& kubelet_version = "v1.35.0");

/// Creates the Deployments of `seed`, one ReplicaSet each and pods_per_deployment running,
/// Ready pods spread round-robin over the nodes in the store (Pending when there are none).
/// Throws ApiError AlreadyExists when a Deployment of those names exists.
void seed_deployments(Store& store, const DeploymentSeed& seed);

}  // namespace rg::sim
