// The pods the benchmarks load kube-sim with: realistic pods of 200 Deployments spread over 500
// nodes, the same fleet in every benchmark so their figures compare. Header-only, for bench/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/realistic_pod.hpp"
#include "sim/server.hpp"

namespace rg::bench {

/// Pod `ordinal` of the fleet: Deployment web-(ordinal % 200), on node-(ordinal % 500).
inline sim::RealisticPodSpec fleet_pod_spec(std::uint64_t ordinal) {
  sim::RealisticPodSpec spec;
  spec.deployment = "web-" + std::to_string(ordinal % 200);
  spec.ordinal = ordinal;
  spec.node_name = "node-" + std::to_string(ordinal % 500);
  return spec;
}

/// Stores the first `pods` pods of the fleet in `server`.
inline void seed_pods(sim::Server& server, std::size_t pods) {
  const auto& type = *server.resources().find("", "v1", "pods");
  for (std::size_t i = 0; i < pods; ++i) {
    server.store().create(type, sim::realistic_pod(fleet_pod_spec(i)));
  }
}

}  // namespace rg::bench
