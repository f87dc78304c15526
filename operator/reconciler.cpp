// The reconcile loop body (see reconciler.hpp).
#include "operator/reconciler.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "client/rest/api_error.hpp"
#include "client/transport/cancellation.hpp"
#include "informer/index_funcs.hpp"
#include "informer/object_key.hpp"
#include "operator/annotations.hpp"
#include "operator/cache_indexes.hpp"
#include "operator/cluster_facts.hpp"
#include "operator/logging.hpp"

namespace rg::op {

namespace {

using Steady = std::chrono::steady_clock;

// Whether the Deployment already carries every annotation the plan sets (and none it removes):
// writing them again would only cost a round trip and a new resourceVersion.
bool annotations_in_place(const client::ObjectMeta& meta, const ScalePlan& plan) {
  return std::all_of(plan.annotations.begin(), plan.annotations.end(), [&](const auto& wanted) {
    const auto it = meta.annotations.find(wanted.first);
    return wanted.second ? it != meta.annotations.end() && it->second == *wanted.second
                         : it == meta.annotations.end();
  });
}

std::string describe(const ScalePlan& plan) {
  return plan.scale_to ? fmt::format("scale to {}", *plan.scale_to) : std::string("annotate");
}

}  // namespace

Reconciler::Reconciler(Caches caches, DeploymentWriter& writer, client::EventRecorder& events,
                       OperatorMetrics* metrics, ReconcilerConfig config,
                       std::function<bool()> may_write)
    : caches_(std::move(caches)),
      writer_(writer),
      events_(events),
      metrics_(metrics),
      config_(config),
      may_write_(std::move(may_write)),
      expectations_(config_.write_echo_timeout) {}

boost::asio::awaitable<ReconcileOutcome> Reconciler::reconcile(std::string key) {
  const auto started = Steady::now();
  const auto deployment = caches_.deployments.get_by_key(key);
  const auto [ns, name] = informer::split_meta_namespace_key(key);
  if (!deployment) {
    expectations_.forget(key);
    std::lock_guard lock(memory_mutex_);
    memory_.erase(key);
    if (metrics_) metrics_->forget_deployment(ns, name);
    co_return ReconcileOutcome{};
  }
  ReconcileOutcome outcome;
  ReconcileResult result = ReconcileResult::kSuccess;
  try {
    outcome = co_await reconcile_existing(*deployment);
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    if (client::is_cancellation(error)) throw;
    try {
      std::rethrow_exception(error);
    } catch (const client::ApiError& e) {
      if (client::is_not_found(e)) {
        co_return ReconcileOutcome{};  // deleted meanwhile: the informer will tell us
      }
      const bool conflict = client::is_conflict(e);
      log(conflict ? spdlog::level::debug : spdlog::level::warn,
          conflict ? "conflict writing the Deployment, will retry" : "reconcile failed",
          {{"namespace", ns}, {"deployment", name}, {"error", e.what()}});
      result = conflict ? ReconcileResult::kRequeue : ReconcileResult::kError;
    } catch (const std::exception& e) {
      log(spdlog::level::err, "reconcile failed",
          {{"namespace", ns}, {"deployment", name}, {"error", e.what()}});
      result = ReconcileResult::kError;
    }
    outcome = {ReconcileOutcome::Next::kRetry, {}};
  }
  if (metrics_) metrics_->reconciled(result, Steady::now() - started);
  co_return outcome;
}

boost::asio::awaitable<ReconcileOutcome> Reconciler::reconcile_existing(
    const client::Deployment& d) {
  const std::string key = informer::meta_namespace_key(d);
  if (const auto wait = expectations_.pending(key, d.metadata.resource_version, Steady::now())) {
    // The cache is older than the operator's own last write: its echo re-queues the key.
    log(spdlog::level::debug, "waiting for the cache to show the last write",
        {{"namespace", d.metadata.namespace_}, {"deployment", d.metadata.name}});
    co_return ReconcileOutcome{ReconcileOutcome::Next::kAfter, *wait};
  }
  // Pods on a suspect node are stranded at once, unless the Deployment asks for a grace: then
  // after it, as on a NotReady node.
  NodeGrace grace{config_.node_grace_period, std::chrono::milliseconds(0)};
  if (auto text = annotation(d.metadata, kNodeGraceAnnotation)) {
    try {
      grace.not_ready = grace.lease_expired = parse_duration(*text);
    } catch (const std::invalid_argument& e) {
      log(spdlog::level::warn, "ignoring an invalid annotation",
          {{"namespace", d.metadata.namespace_},
           {"deployment", d.metadata.name},
           {"error", e.what()}});
    }
  }
  DeploymentFacts facts = deployment_facts(
      d, assess(d, grace),
      caches_.hpa_for ? caches_.hpa_for(d.metadata.namespace_, d.metadata.name) : std::nullopt);
  if (config_.dry_run && facts.enabled && !facts.desired_annotation) {
    // Nothing is ever written in dry-run: act as if today's count had been recorded.
    facts.desired_annotation = facts.applied_annotation = std::to_string(facts.spec_replicas);
  }
  const ClusterFacts cluster = cluster_facts(key);
  ScalePlan plan;
  {
    std::lock_guard lock(memory_mutex_);
    PlanMemory& memory = memory_[key];
    plan = plan_scale(facts, cluster, config_.policy, memory, Steady::now());
    if (!plan.managed && !facts.enabled) memory_.erase(key);
  }
  if (metrics_) {
    if (plan.managed) {
      metrics_->deployment(d.metadata.namespace_, d.metadata.name, plan.desired,
                           facts.replicas.serving, facts.replicas.stranded_by_reason);
    } else {
      metrics_->forget_deployment(d.metadata.namespace_, d.metadata.name);
    }
    metrics_->surge_suppressed(cluster.surge_suppressed);
  }
  co_await carry_out(key, d, plan);
  ReconcileOutcome outcome;
  if (plan.requeue_after) outcome = {ReconcileOutcome::Next::kAfter, *plan.requeue_after};
  co_return outcome;
}

boost::asio::awaitable<void> Reconciler::carry_out(const std::string& key,
                                                   const client::Deployment& d,
                                                   const ScalePlan& plan) {
  // Copies: the writer takes std::strings, the cache keeps CompactStrings.
  const std::string ns(d.metadata.namespace_);
  const std::string name(d.metadata.name);
  const bool writes = !plan.annotations.empty() || plan.scale_to;
  if (writes && !config_.dry_run) {
    if (!may_write_()) {
      log(spdlog::level::debug, "not the leader: leaving the write to the leader",
          {{"namespace", ns}, {"deployment", name}, {"action", describe(plan)}});
      co_return;
    }
    std::string resource_version = d.metadata.resource_version;
    const auto wrote = [&](std::string written) {
      // A write that changed nothing keeps its resourceVersion and has no echo to wait for.
      if (written != resource_version) expectations_.wrote(key, resource_version, Steady::now());
      resource_version = std::move(written);
    };
    // The scale goes first: it is the write the Deployment is waiting for. The annotations
    // follow (a scale's record is the next reconcile's, see plan_scale); removing them when
    // opting out must come last, since once they are gone the Deployment is no longer the
    // operator's and a failed restore would never be retried.
    if (plan.scale_to) {
      try {
        std::string written = co_await writer_.scale(ns, name, resource_version, *plan.scale_to);
        wrote(std::move(written));
      } catch (const client::ApiError& e) {
        if (metrics_) {
          metrics_->scale_patch(plan.direction, client::is_conflict(e) ? PatchResult::kConflict
                                                                       : PatchResult::kError);
        }
        throw;
      }
      if (metrics_) metrics_->scale_patch(plan.direction, PatchResult::kSuccess);
    }
    if (!plan.annotations.empty() && !annotations_in_place(d.metadata, plan)) {
      std::string written =
          co_await writer_.patch_annotations(ns, name, resource_version, plan.annotations);
      wrote(std::move(written));
    }
  } else if (plan.scale_to && metrics_) {
    metrics_->scale_patch(plan.direction, PatchResult::kDryRun);
  }
  client::ObjectReference ref;
  ref.api_version = "apps/v1";
  ref.kind = "Deployment";
  ref.namespace_ = ns;
  ref.name = name;
  ref.uid = d.metadata.uid;
  ref.resource_version = d.metadata.resource_version;
  for (const EventSpec& event : plan.events) {
    const std::string message =
        config_.dry_run ? "dry-run, not done: " + event.message : event.message;
    log(event.warning ? spdlog::level::warn : spdlog::level::info, event.reason,
        {{"namespace", ns}, {"deployment", name}, {"action", message}});
    events_.record(ref, event.warning ? "Warning" : "Normal", event.reason, message);
  }
}

ReplicaAssessment Reconciler::assess(const client::Deployment& d, NodeGrace grace) const {
  const client::LabelSelector selector = selector_of(d);
  // Candidates: the pods carrying one of the selector's matchLabels, else the namespace's.
  const auto& match = d.spec.selector.match_labels;
  std::vector<PodFacts> pods;
  const auto consider = [&](const client::Pod& pod) {
    if (selector.matches(pod.metadata.labels)) pods.push_back(pod_facts(pod));
  };
  if (match.empty()) {
    caches_.pods.for_each_in_index(informer::kNamespaceIndex, d.metadata.namespace_, consider);
  } else {
    caches_.pods.for_each_in_index(
        kPodsByLabelIndex,
        label_index_value(d.metadata.namespace_, match.begin()->first, match.begin()->second),
        consider);
  }
  const NodeLookup nodes = [this](std::string_view node_name) -> std::optional<NodeFacts> {
    const auto node = caches_.nodes.get_by_key(node_name);
    if (!node) return std::nullopt;
    return node_facts(*node, caches_.node_health.health(node_name));
  };
  return assess_replicas(pods, nodes, caches_.node_health.now(), grace);
}

bool too_many_unhealthy(std::size_t unhealthy, std::size_t nodes,
                        double max_unhealthy_node_fraction) {
  return nodes != 0 &&
         static_cast<double>(unhealthy) > max_unhealthy_node_fraction * static_cast<double>(nodes);
}

bool surges_suppressed(const informer::Indexer<client::Node>& nodes, NodeLeaseMonitor& node_health,
                       double max_unhealthy_node_fraction) {
  // Suspect nodes count with the NotReady ones (a suspect node is usually still Ready).
  std::size_t unhealthy = nodes.index_size(kNodesByReadyIndex, "false");
  for (const std::string& suspect : node_health.suspects()) {
    const auto node = nodes.get_by_key(suspect);
    if (node && node_ready(*node)) ++unhealthy;
  }
  return too_many_unhealthy(unhealthy, nodes.size(), max_unhealthy_node_fraction);
}

ClusterFacts Reconciler::cluster_facts(const std::string& key) {
  ClusterFacts facts;
  facts.surge_suppressed =
      surges_suppressed(caches_.nodes, caches_.node_health, config_.max_unhealthy_node_fraction);
  if (config_.policy.max_total_surge) {
    const informer::ObjectName own = informer::split_meta_namespace_key(key);
    caches_.deployments.for_each([&](const client::Deployment& other) {
      if (!opted_in(other) ||
          (other.metadata.name == own.name && other.metadata.namespace_ == own.namespace_))
        return;
      const auto desired = annotation(other.metadata, kDesiredAnnotation);
      const auto parsed = desired ? parse_replicas(*desired) : std::nullopt;
      if (parsed) facts.surge_elsewhere += std::max(0, other.spec.desired_replicas() - *parsed);
    });
  }
  return facts;
}

}  // namespace rg::op
