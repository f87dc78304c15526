// The pod-template-hash label of a Deployment's ReplicaSets: a stable 32-bit FNV-1a hash of
// the pod template (plus the collision count, as controller.ComputeHash does), its decimal
// digits rendered in the safe-encoded alphabet (rand.SafeEncodeString), e.g. "5d8f7c9b6".
// The template is hashed in a canonical JSON form (keys sorted), so equal templates hash
// equally whatever order their fields came in.
#pragma once

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace rg::sim::cluster {

/// rand.SafeEncodeString: each byte mapped into "bcdfghjklmnpqrstvwxz2456789".
std::string safe_encode(std::string_view text);

/// The pod-template-hash of `pod_template` (spec.template) with `collision_count`.
std::string pod_template_hash(const boost::json::object& pod_template,
                              std::int64_t collision_count = 0);

/// Canonical JSON: object keys sorted at every level.
std::string canonical_json(const boost::json::value& value);

}  // namespace rg::sim::cluster
