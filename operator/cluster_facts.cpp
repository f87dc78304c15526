// Facts from typed objects (see cluster_facts.hpp).
#include "operator/cluster_facts.hpp"

#include "operator/annotations.hpp"

namespace rg::op {

namespace {

template <class Conditions>
const auto* find_condition(const Conditions& conditions, std::string_view type) {
  for (const auto& condition : conditions) {
    if (condition.type == type) return &condition;
  }
  return static_cast<decltype(&conditions.front())>(nullptr);
}

}  // namespace

bool node_ready(const client::Node& node) {
  const auto* ready = find_condition(node.status.conditions, "Ready");
  return ready && ready->status == "True";
}

NodeFacts node_facts(const client::Node& node, const NodeHealth& health) {
  NodeFacts facts;
  facts.ready = node_ready(node);
  facts.lease_expired = health.lease_expired;
  facts.suspected_at = health.suspected_at;
  facts.not_ready_since = health.not_ready_since;
  if (health.lease_expired) facts.evidence = describe_evidence(node.metadata.name, health.evidence);
  return facts;
}

PodFacts pod_facts(const client::Pod& pod) {
  const auto* ready = find_condition(pod.status.conditions, "Ready");
  return {pod.spec.node_name.str(), pod.metadata.deletion_timestamp.has_value(),
          ready && ready->status == "True", pod.status.phase != "Pending"};
}

std::optional<std::string> annotation(const client::ObjectMeta& meta, std::string_view key) {
  const auto it = meta.annotations.find(key);
  if (it == meta.annotations.end()) return std::nullopt;
  return it->second;
}

bool opted_in(const client::Deployment& deployment) {
  return annotation(deployment.metadata, kEnabledAnnotation) == "true";
}

bool of_interest(const client::Deployment& d) {
  return opted_in(d) || d.metadata.annotations.contains(kDesiredAnnotation) ||
         d.metadata.annotations.contains(kAppliedAnnotation);
}

client::LabelSelector selector_of(const client::Deployment& d) {
  return client::LabelSelector::from_match(d.spec.selector.match_labels,
                                           d.spec.selector.match_expressions);
}

DeploymentFacts deployment_facts(const client::Deployment& d, ReplicaAssessment replicas,
                                 std::optional<std::string> hpa_name) {
  DeploymentFacts facts;
  facts.enabled = opted_in(d);
  facts.deleting = d.metadata.deletion_timestamp.has_value();
  facts.paused = d.spec.paused;
  facts.spec_replicas = d.spec.desired_replicas();
  facts.desired_annotation = annotation(d.metadata, kDesiredAnnotation);
  facts.applied_annotation = annotation(d.metadata, kAppliedAnnotation);
  facts.replicas_owned = client::owns_spec_replicas(d.metadata.managed_fields, kFieldManager);
  facts.max_surge_annotation = annotation(d.metadata, kMaxSurgeAnnotation);
  facts.hpa_name = std::move(hpa_name);
  facts.replicas = std::move(replicas);
  return facts;
}

}  // namespace rg::op
