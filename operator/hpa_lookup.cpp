// The HPA-by-target index (see hpa_lookup.hpp).
#include "operator/hpa_lookup.hpp"

#include <algorithm>

namespace rg::op {

client::ResourceRef hpa_resource() {
  return {"autoscaling", "v2", "horizontalpodautoscalers", true, {}, {}};
}

std::optional<std::string> target_deployment_key(const client::HorizontalPodAutoscaler& hpa) {
  const auto& target = hpa.spec.scale_target_ref;
  // The autoscaler resolves the target by group and kind; the version does not matter.
  if (target.kind != "Deployment" || target.group() != "apps" || target.name.empty())
    return std::nullopt;
  return hpa.metadata.namespace_ + "/" + target.name;
}

informer::Indexers<client::HorizontalPodAutoscaler> hpa_indexers() {
  auto indexers = informer::default_indexers<client::HorizontalPodAutoscaler>();
  indexers.emplace(kHpasByTargetIndex, [](const client::HorizontalPodAutoscaler& hpa) {
    std::vector<std::string> values;
    if (auto key = target_deployment_key(hpa)) values.push_back(std::move(*key));
    return values;
  });
  return indexers;
}

std::optional<std::string> hpa_targeting(const CacheView<client::HorizontalPodAutoscaler>& hpas,
                                         std::string_view deployment_key) {
  std::optional<std::string> first;
  for (const auto& hpa : hpas.by_index(kHpasByTargetIndex, deployment_key)) {
    if (!first || hpa->metadata.name < *first) first = hpa->metadata.name;
  }
  return first;
}

}  // namespace rg::op
