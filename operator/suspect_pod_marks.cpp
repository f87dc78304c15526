// The not-ready marking policy and its patch (see suspect_pod_marks.hpp).
#include "operator/suspect_pod_marks.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace rg::op {
namespace json = boost::json;

bool MarkedPods::contains(const SuspectEpisode& episode, std::string_view uid) const {
  const auto it = by_node_.find(episode.node);
  return it != by_node_.end() && it->second.since == episode.since && it->second.uids.contains(uid);
}

void MarkedPods::add(const SuspectEpisode& episode, std::string uid) {
  Marked& marked = by_node_[episode.node];
  if (marked.since != episode.since) marked = Marked{.since = episode.since, .uids = {}};
  marked.uids.insert(std::move(uid));
}

void MarkedPods::keep_only(const std::vector<SuspectEpisode>& current) {
  std::erase_if(by_node_, [&](const auto& entry) {
    return std::none_of(current.begin(), current.end(), [&](const SuspectEpisode& e) {
      return e.node == entry.first && e.since == entry.second.since;
    });
  });
}

std::vector<PodMark> plan_not_ready_marks(const std::vector<SuspectEpisode>& suspects,
                                          const std::vector<PodReadiness>& pods, MarkPolicy policy,
                                          const MarkedPods& marked) {
  std::vector<PodMark> marks;
  if (!policy.enabled || policy.surges_suppressed) return marks;
  for (const PodReadiness& pod : pods) {
    if (!pod.ready || !pod.guarded) continue;
    const auto episode = std::find_if(suspects.begin(), suspects.end(),
                                      [&](const SuspectEpisode& e) { return e.node == pod.node; });
    if (episode == suspects.end() || marked.contains(*episode, pod.uid)) continue;
    marks.push_back({pod.namespace_, pod.name, pod.uid, pod.node, pod.ready_condition});
  }
  return marks;
}

json::array not_ready_patch(std::string_view uid, std::size_t index, std::string_view now) {
  const std::string condition = "/status/conditions/" + std::to_string(index);
  return json::array{
      json::object{{"op", "test"}, {"path", "/metadata/uid"}, {"value", uid}},
      json::object{{"op", "test"}, {"path", condition + "/type"}, {"value", "Ready"}},
      json::object{{"op", "test"}, {"path", condition + "/status"}, {"value", "True"}},
      json::object{{"op", "replace"}, {"path", condition + "/status"}, {"value", "False"}},
      json::object{{"op", "add"}, {"path", condition + "/lastTransitionTime"}, {"value", now}},
  };
}

}  // namespace rg::op
