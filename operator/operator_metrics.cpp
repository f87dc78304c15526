// The operator's Prometheus metrics (see operator_metrics.hpp).
#include "operator/operator_metrics.hpp"

namespace rg::op {

namespace {

const char* to_label(ReconcileResult r) {
  switch (r) {
    case ReconcileResult::kSuccess:
      return "success";
    case ReconcileResult::kError:
      return "error";
    case ReconcileResult::kRequeue:
      return "requeue";
  }
  return "error";
}

const char* to_label(PatchResult r) {
  switch (r) {
    case PatchResult::kSuccess:
      return "success";
    case PatchResult::kConflict:
      return "conflict";
    case PatchResult::kError:
      return "error";
    case PatchResult::kDryRun:
      return "dry_run";
  }
  return "error";
}

class RestRequestCounter final : public client::RequestObserver {
 public:
  explicit RestRequestCounter(prometheus::Family<prometheus::Counter>& family) : family_(family) {}
  void on_result(std::string_view method, int code, std::chrono::nanoseconds) override {
    family_.Add({{"code", client::code_label(code)}, {"method", std::string(method)}}).Increment();
  }

 private:
  prometheus::Family<prometheus::Counter>& family_;
};

}  // namespace

OperatorMetrics::OperatorMetrics(prometheus::Registry& registry)
    : reconcile_total_(prometheus::BuildCounter()
                           .Name("replica_guard_reconcile_total")
                           .Help("Reconciles of Deployments by result")
                           .Register(registry)),
      reconcile_duration_(prometheus::BuildHistogram()
                              .Name("replica_guard_reconcile_duration_seconds")
                              .Help("How long one reconcile took")
                              .Register(registry)),
      scale_patches_(prometheus::BuildCounter()
                         .Name("replica_guard_scale_patches_total")
                         .Help("Scale changes of Deployments by direction and result")
                         .Register(registry)),
      surge_suppressed_(prometheus::BuildGauge()
                            .Name("replica_guard_surge_suppressed")
                            .Help("1 while too many nodes are unhealthy and surges are held back")
                            .Register(registry)
                            .Add({})),
      desired_(prometheus::BuildGauge()
                   .Name("replica_guard_desired_replicas")
                   .Help("Serving replicas the user wants, per managed Deployment")
                   .Register(registry)),
      serving_(prometheus::BuildGauge()
                   .Name("replica_guard_serving_replicas")
                   .Help("Ready pods, not terminating, on Ready nodes, per managed Deployment")
                   .Register(registry)),
      stranded_(prometheus::BuildGauge()
                    .Name("replica_guard_stranded_replicas")
                    .Help("Pods on failed nodes, past the grace period, per managed Deployment "
                          "and reason (node_lease_expired, node_not_ready, node_gone)")
                    .Register(registry)),
      leader_(prometheus::BuildGauge()
                  .Name("leader_election_master_status")
                  .Help("1 while this process is the leader of the named lease")
                  .Register(registry)),
      suspect_nodes_(prometheus::BuildGauge()
                         .Name("replica_guard_suspect_nodes")
                         .Help("Nodes whose Lease has not been seen renewed for --node-lease-grace "
                               "while most other nodes' Leases were")
                         .Register(registry)
                         .Add({})),
      // Renewals come every 10 s (jittered): the buckets resolve 10-12 s finely, and reach the
      // grace and beyond, so the grace can be tuned from what the cluster shows.
      lease_renewal_gaps_(
          prometheus::BuildHistogram()
              .Name("replica_guard_node_lease_renewal_gap_seconds")
              .Help("Time between two observed renewals of a node's Lease, on the operator's "
                    "clock")
              .Register(registry)
              .Add({}, prometheus::Histogram::BucketBoundaries{1, 5, 9, 10, 10.5, 11, 12, 15, 20,
                                                               24, 30, 45, 60})),
      rest_requests_(prometheus::BuildCounter()
                         .Name("rest_client_requests_total")
                         .Help("HTTP requests to the API server by status code and method")
                         .Register(registry)) {
  for (const auto r :
       {ReconcileResult::kSuccess, ReconcileResult::kError, ReconcileResult::kRequeue}) {
    reconcile_total_.Add({{"result", to_label(r)}});
  }
  // Every patch series exists from the start at 0, so increase() and rate() see the first one.
  for (const char* direction : {"up", "down"}) {
    for (const auto r : {PatchResult::kSuccess, PatchResult::kConflict, PatchResult::kError,
                         PatchResult::kDryRun}) {
      scale_patches_.Add({{"direction", direction}, {"result", to_label(r)}});
    }
  }
}

void OperatorMetrics::reconciled(ReconcileResult result, std::chrono::duration<double> took) {
  reconcile_total_.Add({{"result", to_label(result)}}).Increment();
  static const prometheus::Histogram::BucketBoundaries kBuckets{
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
  reconcile_duration_.Add({}, kBuckets).Observe(took.count());
}

void OperatorMetrics::scale_patch(ScaleDirection direction, PatchResult result) {
  const char* dir = direction == ScaleDirection::kDown ? "down" : "up";
  scale_patches_.Add({{"direction", dir}, {"result", to_label(result)}}).Increment();
}

void OperatorMetrics::surge_suppressed(bool suppressed) {
  surge_suppressed_.Set(suppressed ? 1 : 0);
}

void OperatorMetrics::deployment(const std::string& namespace_, const std::string& name,
                                 std::int32_t desired, std::int32_t serving,
                                 const StrandedCounts& stranded) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = deployments_.try_emplace({namespace_, name});
  if (inserted) {
    const prometheus::Labels labels{{"namespace", namespace_}, {"deployment", name}};
    it->second.desired = &desired_.Add(labels);
    it->second.serving = &serving_.Add(labels);
    for (std::size_t r = 0; r < kStrandedReasons; ++r) {
      prometheus::Labels with_reason = labels;
      with_reason.emplace("reason", to_label(static_cast<StrandedReason>(r)));
      it->second.stranded[r] = &stranded_.Add(with_reason);
    }
  }
  it->second.desired->Set(desired);
  it->second.serving->Set(serving);
  for (std::size_t r = 0; r < kStrandedReasons; ++r) it->second.stranded[r]->Set(stranded[r]);
}

void OperatorMetrics::forget_deployment(const std::string& namespace_, const std::string& name) {
  std::lock_guard lock(mutex_);
  const auto it = deployments_.find({namespace_, name});
  if (it == deployments_.end()) return;
  desired_.Remove(it->second.desired);
  serving_.Remove(it->second.serving);
  for (auto* gauge : it->second.stranded) stranded_.Remove(gauge);
  deployments_.erase(it);
}

void OperatorMetrics::leader(const std::string& lease_name, bool leading) {
  leader_.Add({{"name", lease_name}}).Set(leading ? 1 : 0);
}

void OperatorMetrics::suspect_nodes(std::size_t count) {
  suspect_nodes_.Set(static_cast<double>(count));
}

void OperatorMetrics::lease_renewal_gap(std::chrono::milliseconds gap) {
  lease_renewal_gaps_.Observe(std::chrono::duration<double>(gap).count());
}

std::shared_ptr<client::RequestObserver> OperatorMetrics::request_observer() {
  return std::make_shared<RestRequestCounter>(rest_requests_);
}

}  // namespace rg::op
