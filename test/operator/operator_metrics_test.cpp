// The operator's Prometheus metrics: fixed label sets, series that exist from the start, and
// per-Deployment gauges removed with the Deployment.
#include <doctest/doctest.h>
#include <prometheus/registry.h>

#include <map>

#include "operator/operator_metrics.hpp"

namespace rg::op {
namespace {

// "name{label=value,...}" -> value, for counters and gauges.
std::map<std::string, double> samples(prometheus::Registry& registry) {
  std::map<std::string, double> out;
  for (const auto& family : registry.Collect()) {
    for (const auto& metric : family.metric) {
      std::string key = family.name + "{";
      for (const auto& label : metric.label) key += label.name + "=" + label.value + ",";
      key += "}";
      out[key] = family.type == prometheus::MetricType::Counter ? metric.counter.value
                                                                : metric.gauge.value;
    }
  }
  return out;
}

TEST_CASE("every scale-patch series exists at 0 before the first patch") {
  prometheus::Registry registry;
  OperatorMetrics metrics(registry);
  auto before = samples(registry);
  int series = 0;
  for (const auto& [key, value] : before) {
    if (key.rfind("replica_guard_scale_patches_total{", 0) != 0) continue;
    ++series;
    CHECK(value == 0);
  }
  CHECK(series == 2 * 4);
  metrics.scale_patch(ScaleDirection::kUp, PatchResult::kSuccess);
  auto after = samples(registry);
  CHECK(after["replica_guard_scale_patches_total{direction=up,result=success,}"] == 1);
  CHECK(after["replica_guard_scale_patches_total{direction=down,result=success,}"] == 0);
}

TEST_CASE("a Deployment's gauges go away with it") {
  prometheus::Registry registry;
  OperatorMetrics metrics(registry);
  metrics.deployment("shop", "web", 4, 3, 1);
  auto set = samples(registry);
  CHECK(set["replica_guard_stranded_replicas{deployment=web,namespace=shop,}"] == 1);
  metrics.forget_deployment("shop", "web");
  CHECK_FALSE(samples(registry).contains(
      "replica_guard_stranded_replicas{deployment=web,namespace=shop,}"));
}

}  // namespace
}  // namespace rg::op
