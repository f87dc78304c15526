// Realistic kubelet-managed Pods for kube-sim's seeded clusters and the benchmarks: what a
// Deployment's pod looks like on a real cluster (4-5 KB of JSON: managedFields from two managers,
// an owner reference, a projected service-account volume, the default tolerations, four
// conditions and a container status).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>

namespace rg::sim {

struct RealisticPodSpec {
  std::string namespace_ = "default";
  std::string deployment = "web";  ///< the app label and the name prefix
  std::string template_hash = "5d8f7c9b6";
  std::string replica_set_uid;       ///< empty: derived from namespace, deployment and hash
  std::uint64_t ordinal = 0;         ///< makes name, uid and IP unique
  std::string node_name = "node-1";  ///< empty: a Pending pod, not yet scheduled
  bool ready = true;
  std::string creation_timestamp = "2026-11-29T12:00:00Z";
  std::string image = "registry.example/web:1.27.3";
};

/// A deterministic version-4-shaped UUID from a seed string.
std::string uuid_from(std::string_view seed);

/// The pod's name: "<deployment>-<template_hash>-<5 chars>", unique per ordinal below 27^5.
std::string realistic_pod_name(const RealisticPodSpec& spec);

/// The Pod as the API server returns it (without resourceVersion, which the store assigns).
boost::json::object realistic_pod(const RealisticPodSpec& spec);

}  // namespace rg::sim
