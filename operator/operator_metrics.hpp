// The operator's own Prometheus metrics: reconciles, scale patches, the partition brake, the
// per-Deployment desired/serving/stranded gauges (stranded by reason; removed when a Deployment
// goes away or opts out), suspect nodes and observed node Lease renewal gaps, leader status, and
// rest_client_requests_total through the client's RequestObserver.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "client/rest/request_observer.hpp"
#include "operator/scale_plan.hpp"

namespace rg::op {

enum class ReconcileResult { kSuccess, kError, kRequeue };
enum class PatchResult { kSuccess, kConflict, kError, kDryRun };

class OperatorMetrics {
 public:
  explicit OperatorMetrics(prometheus::Registry& registry);

  void reconciled(ReconcileResult result, std::chrono::duration<double> took);
  void scale_patch(ScaleDirection direction, PatchResult result);
  void surge_suppressed(bool suppressed);
  /// Sets the gauges of a managed Deployment.
  void deployment(const std::string& namespace_, const std::string& name, std::int32_t desired,
                  std::int32_t serving, const StrandedCounts& stranded);
  /// Removes them (the Deployment is gone or no longer managed).
  void forget_deployment(const std::string& namespace_, const std::string& name);
  void leader(const std::string& lease_name, bool leading);
  /// Nodes whose Lease the operator has seen expire (SuspectNodeDetector).
  void suspect_nodes(std::size_t count);
  /// A node Lease's renewTime changed this long after its previous observed change.
  void lease_renewal_gap(std::chrono::milliseconds gap);

  /// Counts rest_client_requests_total{code,method}; hand it to the RestClient.
  std::shared_ptr<client::RequestObserver> request_observer();

 private:
  struct DeploymentGauges {
    prometheus::Gauge* desired;
    prometheus::Gauge* serving;
    std::array<prometheus::Gauge*, kStrandedReasons> stranded;
  };
  prometheus::Family<prometheus::Counter>& reconcile_total_;
  prometheus::Family<prometheus::Histogram>& reconcile_duration_;
  prometheus::Family<prometheus::Counter>& scale_patches_;
  prometheus::Gauge& surge_suppressed_;
  prometheus::Family<prometheus::Gauge>& desired_;
  prometheus::Family<prometheus::Gauge>& serving_;
  prometheus::Family<prometheus::Gauge>& stranded_;
  prometheus::Family<prometheus::Gauge>& leader_;
  prometheus::Gauge& suspect_nodes_;
  prometheus::Histogram& lease_renewal_gaps_;
  prometheus::Family<prometheus::Counter>& rest_requests_;
  std::mutex mutex_;  // guards deployments_ (prometheus-cpp families are thread-safe themselves)
  std::map<std::pair<std::string, std::string>, DeploymentGauges> deployments_;
};

}  // namespace rg::op
