// Counting serving and stranded replicas (see replica_assessment.hpp).
#include "operator/replica_assessment.hpp"

#include <algorithm>

namespace rg::op {

ReplicaAssessment assess_replicas(const std::vector<PodFacts>& pods, const NodeLookup& nodes,
                                  WallClock::time_point now, std::chrono::milliseconds grace) {
  ReplicaAssessment out;
  for (const PodFacts& pod : pods) {
    ++out.selected;
    if (pod.terminating || pod.node_name.empty()) continue;
    const std::optional<NodeFacts> node = nodes(pod.node_name);
    if (node && node->ready) {
      if (pod.ready) ++out.serving;
      continue;
    }
    const auto unhealthy_for =
        node ? std::chrono::duration_cast<std::chrono::milliseconds>(now - node->unhealthy_since)
             : grace;
    if (unhealthy_for >= grace) {
      ++out.stranded;
      if (std::find(out.failed_nodes.begin(), out.failed_nodes.end(), pod.node_name) ==
          out.failed_nodes.end()) {
        out.failed_nodes.push_back(pod.node_name);
      }
    } else {
      const auto remaining = grace - unhealthy_for;
      if (!out.next_stranded_in || remaining < *out.next_stranded_in)
        out.next_stranded_in = remaining;
    }
  }
  std::sort(out.failed_nodes.begin(), out.failed_nodes.end());
  return out;
}

}  // namespace rg::op
