// Scale (autoscaling/v1): the /scale subresource of a Deployment or ReplicaSet, and the merge
// patch body the operator sends to change spec.replicas.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "client/model/object_meta.hpp"

namespace rg::client {

struct ScaleSpec {
  std::int32_t replicas = 0;
};

struct ScaleStatus {
  std::int32_t replicas = 0;
  std::string selector;  ///< the label selector in its string form, "app=web,tier in (a,b)"
};

struct Scale {
  ObjectMeta metadata;
  ScaleSpec spec;
  ScaleStatus status;
};

/// The body of `PATCH .../deployments/NAME/scale` (Content-Type application/merge-patch+json)
/// setting spec.replicas. With a resourceVersion, the API server applies it only if the object
/// is unchanged since it was read (409 Conflict otherwise): optimistic concurrency.
boost::json::object scale_patch(std::int32_t replicas, std::string_view resource_version = {});

namespace detail {
const StructDesc& schema_of(Tag<Scale>);
}  // namespace detail

}  // namespace rg::client
