// The secondary indexes the operator reads its caches through: their names, the values they
// file objects under, and the index functions each informer is built with. The reconciler and
// the event handlers look objects up by these names; nothing else defines an index.
#pragma once

#include <string>
#include <string_view>

#include "client/model/deployment.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "informer/indexer.hpp"

namespace rg::op {

/// The index of pods by spec.nodeName: a Node's change reaches the Deployments with pods on it.
inline constexpr std::string_view kPodsByNodeIndex = "spec.nodeName";
/// The index of pods by each of their labels, as "namespace/key=value": a Deployment's pods are
/// found through one of its matchLabels instead of a scan of its whole namespace.
inline constexpr std::string_view kPodsByLabelIndex = "namespace/label";

/// The index of Deployments by the first matchLabels entry of their selector, as
/// "namespace/key=value" ("namespace/" when the selector has no matchLabels): a Pod finds the
/// Deployments that may select it through its own labels instead of a scan of its namespace.
inline constexpr std::string_view kDeploymentsBySelectorIndex = "spec.selector.matchLabels";

/// The index of nodes by readiness ("true" or "false", see node_ready): the share of unhealthy
/// nodes is read without a pass over every node per reconcile.
inline constexpr std::string_view kNodesByReadyIndex = "status.conditions.Ready";

/// The value kPodsByLabelIndex and kDeploymentsBySelectorIndex file a label under:
/// "namespace/key=value".
std::string label_index_value(std::string_view ns, std::string_view key, std::string_view value);

/// The indexes the reconciler reads Deployments through (the namespace index and
/// kDeploymentsBySelectorIndex), for the Deployment informer.
informer::Indexers<client::Deployment> deployment_indexers();

/// The indexes the reconciler reads pods through (the namespace index, kPodsByNodeIndex and
/// kPodsByLabelIndex), for the pod informer.
informer::Indexers<client::Pod> pod_indexers();

/// The indexes the reconciler reads nodes through (kNodesByReadyIndex), for the node informer.
informer::Indexers<client::Node> node_indexers();

}  // namespace rg::op
