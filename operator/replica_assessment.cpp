// Counting serving and stranded replicas (see replica_assessment.hpp).
#include "operator/replica_assessment.hpp"

#include <algorithm>

namespace rg::op {

namespace {

using std::chrono::milliseconds;

// How long until the node's pods count as stranded (<= 0: they do), and why; nullopt for a
// healthy node.
struct Verdict {
  milliseconds remaining;
  StrandedReason reason;
};

std::optional<Verdict> judge(const std::optional<NodeFacts>& node,
                             std::chrono::steady_clock::time_point now, NodeGrace grace) {
  if (!node) return Verdict{milliseconds(0), StrandedReason::kNodeGone};
  const auto elapsed = [now](std::chrono::steady_clock::time_point since) {
    return std::chrono::duration_cast<milliseconds>(now - since);
  };
  std::optional<Verdict> verdict;
  const auto consider = [&](milliseconds remaining, StrandedReason reason) {
    if (!verdict || remaining < verdict->remaining) verdict = Verdict{remaining, reason};
  };
  if (node->lease_expired) {
    consider(grace.lease_expired - elapsed(node->suspected_at.value_or(now)),
             StrandedReason::kNodeLeaseExpired);
  }
  if (!node->ready) {
    // A node that was suspect before it turned NotReady has been failing since then.
    std::chrono::steady_clock::time_point since = node->not_ready_since.value_or(now);
    if (node->suspected_at) since = std::min(since, *node->suspected_at);
    consider(grace.not_ready - elapsed(since), StrandedReason::kNodeNotReady);
  }
  return verdict;
}

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

const char* to_label(StrandedReason reason) {
  switch (reason) {
    case StrandedReason::kNodeLeaseExpired:
      return "node_lease_expired";
    case StrandedReason::kNodeNotReady:
      return "node_not_ready";
    case StrandedReason::kNodeGone:
      return "node_gone";
  }
  return "node_gone";
}

ReplicaAssessment assess_replicas(const std::vector<PodFacts>& pods, const NodeLookup& nodes,
                                  std::chrono::steady_clock::time_point now, NodeGrace grace) {
  ReplicaAssessment out;
  for (const PodFacts& pod : pods) {
    ++out.selected;
    if (pod.terminating || pod.node_name.empty()) continue;
    const std::optional<NodeFacts> node = nodes(pod.node_name);
    const std::optional<Verdict> verdict = judge(node, now, grace);
    if (!verdict) {
      if (pod.ready) ++out.serving;
      continue;
    }
    if (verdict->remaining > milliseconds(0)) {
      if (!out.next_stranded_in || verdict->remaining < *out.next_stranded_in)
        out.next_stranded_in = verdict->remaining;
      continue;
    }
    ++out.stranded;
    if (!pod.started) ++out.stranded_unstarted;
    ++out.stranded_by_reason[static_cast<std::size_t>(verdict->reason)];
    add_once(out.failed_nodes, pod.node_name);
    if (verdict->reason == StrandedReason::kNodeLeaseExpired && !node->evidence.empty())
      add_once(out.evidence, node->evidence);
  }
  std::sort(out.failed_nodes.begin(), out.failed_nodes.end());
  std::sort(out.evidence.begin(), out.evidence.end());
  return out;
}

}  // namespace rg::op
