// HorizontalPodAutoscaler (autoscaling/v2): the typed projection of what an operator needs to know
// about an HPA -- which object it scales (spec.scaleTargetRef) and within which bounds. Metrics,
// behavior and status are not kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "client/model/object_meta.hpp"

namespace rg::client {

/// autoscaling/v2 CrossVersionObjectReference: the object an HPA scales.
struct CrossVersionObjectReference {
  std::string api_version;  ///< "apps/v1"; may be empty (the autoscaler then finds nothing)
  std::string kind;         ///< "Deployment"
  std::string name;

  /// The API group of api_version: "apps" for "apps/v1", "" for "v1" or an empty apiVersion.
  std::string_view group() const;
};

struct HorizontalPodAutoscalerSpec {
  CrossVersionObjectReference scale_target_ref;
  std::optional<std::int32_t> min_replicas;  ///< absent means 1: use lower_bound()
  std::int32_t max_replicas = 0;

  /// spec.minReplicas with the API default applied.
  std::int32_t lower_bound() const { return min_replicas.value_or(1); }
};

struct HorizontalPodAutoscaler {
  ObjectMeta metadata;
  HorizontalPodAutoscalerSpec spec;
};

namespace detail {
const StructDesc& schema_of(Tag<HorizontalPodAutoscaler>);
}  // namespace detail

}  // namespace rg::client
