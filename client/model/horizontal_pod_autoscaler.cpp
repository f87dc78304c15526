// Schema of the HorizontalPodAutoscaler projection (see horizontal_pod_autoscaler.hpp).
#include "client/model/horizontal_pod_autoscaler.hpp"

#include "client/model/schema.hpp"

namespace rg::client {

std::string_view CrossVersionObjectReference::group() const {
  const std::string_view text = api_version;
  const auto slash = text.find('/');
  return slash == std::string_view::npos ? std::string_view() : text.substr(0, slash);
}

namespace detail {

const StructDesc& schema_of(Tag<CrossVersionObjectReference>) {
  static constexpr FieldDesc fields[] = {
      field<&CrossVersionObjectReference::api_version>("apiVersion"),
      field<&CrossVersionObjectReference::kind>("kind"),
      field<&CrossVersionObjectReference::name>("name"),
  };
  static constexpr StructDesc desc{"CrossVersionObjectReference", fields};
  return desc;
}

const StructDesc& schema_of(Tag<HorizontalPodAutoscalerSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&HorizontalPodAutoscalerSpec::scale_target_ref>("scaleTargetRef"),
      field<&HorizontalPodAutoscalerSpec::min_replicas>("minReplicas"),
      field<&HorizontalPodAutoscalerSpec::max_replicas>("maxReplicas"),
  };
  static constexpr StructDesc desc{"HorizontalPodAutoscalerSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<HorizontalPodAutoscaler>) {
  static constexpr FieldDesc fields[] = {
      field<&HorizontalPodAutoscaler::metadata>("metadata", true),
      field<&HorizontalPodAutoscaler::spec>("spec"),
  };
  static constexpr StructDesc desc{"HorizontalPodAutoscaler", fields, "autoscaling/v2",
                                   "HorizontalPodAutoscaler"};
  return desc;
}

}  // namespace detail
}  // namespace rg::client
