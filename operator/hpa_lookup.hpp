// Which HorizontalPodAutoscaler scales a Deployment: an index of the HPA cache by scale target,
// so that the reconciler leaves those Deployments to the autoscaler (two writers of spec.replicas
// fight) and an HPA's add, change or delete reaches the Deployment it targets.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "client/model/horizontal_pod_autoscaler.hpp"
#include "client/rest/resource.hpp"
#include "informer/index_funcs.hpp"
#include "informer/indexer.hpp"
#include "operator/cache_view.hpp"

namespace rg::op {

/// horizontalpodautoscalers in autoscaling/v2 (served since Kubernetes 1.23).
client::ResourceRef hpa_resource();

/// The index of HPAs by the Deployment they scale, as the Deployment's "namespace/name" key.
inline constexpr std::string_view kHpasByTargetIndex = "spec.scaleTargetRef";

/// The "namespace/name" key of the Deployment `hpa` scales, or std::nullopt when its
/// scaleTargetRef is not an apps Deployment (a StatefulSet, a custom resource, an apiVersion
/// the autoscaler cannot resolve to the apps group).
std::optional<std::string> target_deployment_key(const client::HorizontalPodAutoscaler& hpa);

/// The indexes the HPA informer needs: the namespace index and kHpasByTargetIndex.
informer::Indexers<client::HorizontalPodAutoscaler> hpa_indexers();

/// The name of an HPA in `hpas` (built with hpa_indexers()) that scales the Deployment
/// `deployment_key` ("namespace/name"); the first by name when several do.
std::optional<std::string> hpa_targeting(const CacheView<client::HorizontalPodAutoscaler>& hpas,
                                         std::string_view deployment_key);

}  // namespace rg::op
