// HorizontalPodAutoscaler detection: decoding the autoscaling/v2 projection, and the index that
// finds the HPA scaling a Deployment (what the reconciler asks before it writes spec.replicas).
#include <doctest/doctest.h>

#include <memory>

#include "client/model/codec.hpp"
#include "client/model/horizontal_pod_autoscaler.hpp"
#include "operator/hpa_lookup.hpp"

using rg::client::HorizontalPodAutoscaler;
using rg::op::hpa_targeting;
using rg::op::target_deployment_key;

namespace {

std::shared_ptr<const HorizontalPodAutoscaler> hpa(const std::string& ns, const std::string& name,
                                                   const std::string& api_version,
                                                   const std::string& kind,
                                                   const std::string& target) {
  auto h = std::make_shared<HorizontalPodAutoscaler>();
  h->metadata.namespace_ = ns;
  h->metadata.name = name;
  h->spec.scale_target_ref = {api_version, kind, target};
  h->spec.max_replicas = 10;
  return h;
}

}  // namespace

TEST_CASE("an autoscaling/v2 HorizontalPodAutoscaler decodes its target and bounds") {
  const auto decoded = rg::client::decode<HorizontalPodAutoscaler>(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7", "uid": "u-1"},
    "spec": {
      "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
      "minReplicas": 2, "maxReplicas": 10,
      "metrics": [{"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": 50}}}],
      "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300,
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}},
    "status": {"currentReplicas": 3, "desiredReplicas": 4,
      "conditions": [{"type": "AbleToScale", "status": "True"}]}})");
  CHECK(decoded.metadata.name == "web");
  CHECK(decoded.metadata.namespace_ == "shop");
  CHECK(decoded.metadata.resource_version == "7");
  const auto& target = decoded.spec.scale_target_ref;
  CHECK(target.api_version == "apps/v1");
  CHECK(target.group() == "apps");
  CHECK(target.kind == "Deployment");
  CHECK(target.name == "web");
  CHECK(decoded.spec.min_replicas == 2);
  CHECK(decoded.spec.lower_bound() == 2);
  CHECK(decoded.spec.max_replicas == 10);

  const auto bare = rg::client::decode<HorizontalPodAutoscaler>(
      R"({"metadata": {"name": "x"}, "spec": {"scaleTargetRef": {"kind": "Deployment",
          "name": "x"}, "maxReplicas": 3}})");
  CHECK_FALSE(bare.spec.min_replicas);
  CHECK(bare.spec.lower_bound() == 1);
  CHECK(bare.spec.scale_target_ref.group().empty());

  CHECK_THROWS_AS(rg::client::decode<HorizontalPodAutoscaler>(
                      R"({"metadata": {}, "spec": {"maxReplicas": "ten"}})"),
                  rg::client::DecodeError);
}

TEST_CASE("only an apps Deployment target names a Deployment, whatever its version") {
  CHECK(target_deployment_key(*hpa("shop", "h", "apps/v1", "Deployment", "web")) == "shop/web");
  CHECK(target_deployment_key(*hpa("shop", "h", "apps/v1beta2", "Deployment", "web")) ==
        "shop/web");
  CHECK_FALSE(target_deployment_key(*hpa("shop", "h", "apps/v1", "StatefulSet", "web")));
  CHECK_FALSE(target_deployment_key(*hpa("shop", "h", "example.com/v1", "Deployment", "web")));
  CHECK_FALSE(target_deployment_key(*hpa("shop", "h", "", "Deployment", "web")));
  CHECK_FALSE(target_deployment_key(*hpa("shop", "h", "apps/v1", "Deployment", "")));
}

TEST_CASE("with one cache per watched namespace the lookup spans them all") {
  rg::informer::Indexer<HorizontalPodAutoscaler> shop{rg::op::hpa_indexers()};
  rg::informer::Indexer<HorizontalPodAutoscaler> blog{rg::op::hpa_indexers()};
  shop.add(hpa("shop", "web-hpa", "apps/v1", "Deployment", "web"));
  blog.add(hpa("blog", "api-hpa", "apps/v1", "Deployment", "api"));
  blog.add(hpa("blog", "web-hpa", "apps/v1", "Deployment", "web"));
  const rg::op::CacheView<HorizontalPodAutoscaler> both({&shop, &blog});
  CHECK(both.size() == 3);
  CHECK(both.list().size() == 3);
  CHECK(both.get_by_key("blog/api-hpa") != nullptr);
  CHECK(both.get_by_key("shop/api-hpa") == nullptr);
  CHECK(both.by_index(rg::informer::kNamespaceIndex, "blog").size() == 2);
  CHECK(hpa_targeting(both, "shop/web") == "web-hpa");
  CHECK(hpa_targeting(both, "blog/api") == "api-hpa");
  CHECK_FALSE(hpa_targeting(both, "shop/api"));
}

TEST_CASE("the index finds the HPA scaling a Deployment, and follows changes and deletes") {
  rg::informer::Indexer<HorizontalPodAutoscaler> hpas{rg::op::hpa_indexers()};
  hpas.add(hpa("shop", "web-hpa", "apps/v1", "Deployment", "web"));
  hpas.add(hpa("shop", "db-hpa", "apps/v1", "StatefulSet", "db"));
  hpas.add(hpa("other", "web-hpa", "apps/v1", "Deployment", "api"));

  CHECK(hpa_targeting(hpas, "shop/web") == "web-hpa");
  CHECK_FALSE(hpa_targeting(hpas, "shop/db"));    // a StatefulSet of that name is not it
  CHECK_FALSE(hpa_targeting(hpas, "other/web"));  // namespaces do not mix
  CHECK(hpa_targeting(hpas, "other/api") == "web-hpa");

  SUBCASE("several HPAs on one Deployment: the first by name") {
    hpas.add(hpa("shop", "a-hpa", "apps/v1", "Deployment", "web"));
    CHECK(hpa_targeting(hpas, "shop/web") == "a-hpa");
  }
  SUBCASE("retargeted") {
    hpas.update(hpa("shop", "web-hpa", "apps/v1", "Deployment", "web-canary"));
    CHECK_FALSE(hpa_targeting(hpas, "shop/web"));
    CHECK(hpa_targeting(hpas, "shop/web-canary") == "web-hpa");
  }
  SUBCASE("deleted") {
    hpas.remove("shop/web-hpa");
    CHECK_FALSE(hpa_targeting(hpas, "shop/web"));
  }
}
