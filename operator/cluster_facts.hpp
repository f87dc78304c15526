// From typed objects in the caches to the facts the policy reads: a node's health, a pod's
// standing, a Deployment's annotations and state. Pure conversions, no I/O.
#pragma once

#include <optional>
#include <string>

#include "client/labels/label_selector.hpp"
#include "client/model/deployment.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "operator/replica_assessment.hpp"
#include "operator/scale_plan.hpp"
#include "operator/suspect_node_detector.hpp"

namespace rg::op {

/// Ready unless its Ready condition is missing or not "True"; the rest is what the operator
/// observed of it (NodeLeaseMonitor), on its own clock.
NodeFacts node_facts(const client::Node& node, const NodeHealth& health);

/// Whether the node's Ready condition is "True" (node_facts(...).ready, without the time).
bool node_ready(const client::Node& node);

PodFacts pod_facts(const client::Pod& pod);

/// The annotation's value, if present.
std::optional<std::string> annotation(const client::ObjectMeta& meta, std::string_view key);

/// True when replica-guard.io/enabled is "true".
bool opted_in(const client::Deployment& deployment);

/// Opted in, or still carrying the operator's annotations (so opting out can clean up): the
/// Deployments the operator has to look at.
bool of_interest(const client::Deployment& deployment);

/// The Deployment's spec.selector; throws std::invalid_argument for an invalid one.
client::LabelSelector selector_of(const client::Deployment& deployment);

/// The Deployment's own facts; the assessment and the HPA come from the other caches.
DeploymentFacts deployment_facts(const client::Deployment& deployment, ReplicaAssessment replicas,
                                 std::optional<std::string> hpa_name);

}  // namespace rg::op
