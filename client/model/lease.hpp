// Lease (coordination.k8s.io/v1): the object leader election holds and renews. Times are
// MicroTime strings in their wire form ("2026-11-29T14:00:00.123456Z").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/model/object_meta.hpp"

namespace rg::client {

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<std::int32_t> lease_duration_seconds;
  std::optional<std::string> acquire_time;
  std::optional<std::string> renew_time;
  std::optional<std::int32_t> lease_transitions;
};

/// Encode with to_json (client/model/codec.hpp) for create and update.
struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;
};

namespace detail {
const StructDesc& schema_of(Tag<Lease>);
}  // namespace detail

}  // namespace rg::client
