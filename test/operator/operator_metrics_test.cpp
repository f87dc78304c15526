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
  metrics.deployment("shop", "web", 4, 3, StrandedCounts{1, 0, 2});
  auto set = samples(registry);
  CHECK(set["replica_guard_stranded_replicas{deployment=web,namespace=shop,reason=node_lease_"
            "expired,}"] == 1);
  CHECK(set["replica_guard_stranded_replicas{deployment=web,namespace=shop,reason=node_not_"
            "ready,}"] == 0);
  CHECK(set["replica_guard_stranded_replicas{deployment=web,namespace=shop,reason=node_gone,}"] ==
        2);
  metrics.forget_deployment("shop", "web");
  for (const auto& [key, value] : samples(registry))
    CHECK_FALSE(key.starts_with("replica_guard_stranded_replicas{"));
}

TEST_CASE("suspect nodes and observed Lease renewal gaps") {
  prometheus::Registry registry;
  OperatorMetrics metrics(registry);
  metrics.suspect_nodes(2);
  metrics.lease_renewal_gap(std::chrono::milliseconds(10'300));
  CHECK(samples(registry)["replica_guard_suspect_nodes{}"] == 2);
  bool found = false;
  for (const auto& family : registry.Collect()) {
    if (family.name != "replica_guard_node_lease_renewal_gap_seconds") continue;
    found = true;
    REQUIRE(family.metric.size() == 1);
    const auto& histogram = family.metric[0].histogram;
    CHECK(histogram.sample_count == 1);
    for (const auto& bucket : histogram.bucket) {
      CHECK(bucket.cumulative_count == (bucket.upper_bound >= 10.5 ? 1U : 0U));
    }
  }
  CHECK(found);
}

}  // namespace
}  // namespace rg::op
