// The not-ready marking's I/O (see suspect_pod_marker.hpp).
#include "operator/suspect_pod_marker.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>

#include "client/model/time.hpp"
#include "client/record/event_recorder.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/cancellation.hpp"
#include "operator/cache_indexes.hpp"
#include "operator/cluster_facts.hpp"
#include "operator/event_handlers.hpp"
#include "operator/logging.hpp"
#include "operator/node_lease_monitor.hpp"

namespace rg::op {
namespace json = boost::json;

namespace {

client::ObjectReference pod_reference(const PodMark& mark) {
  client::ObjectReference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.namespace_ = mark.namespace_;
  ref.name = mark.name;
  ref.uid = mark.uid;
  return ref;
}

}  // namespace

SuspectPodMarker::SuspectPodMarker(client::RestClient& client, client::EventRecorder& events,
                                   MarkerCaches caches, bool enabled, bool dry_run)
    : client_(client),
      events_(events),
      caches_(std::move(caches)),
      policy_{.enabled = enabled},
      dry_run_(dry_run) {}

bool SuspectPodMarker::guarded(const client::Pod& pod) const {
  for (const std::string& key : deployments_for_pod(caches_.deployments, pod)) {
    const auto d = caches_.deployments.get_by_key(key);
    if (!d || !opted_in(*d) || d->metadata.deletion_timestamp || d->spec.paused) continue;
    if (caches_.hpa_for && caches_.hpa_for(d->metadata.namespace_, d->metadata.name)) continue;
    return true;
  }
  return false;
}

boost::asio::awaitable<void> SuspectPodMarker::sync(NodeLeaseMonitor& node_health,
                                                    bool surges_suppressed) {
  std::vector<SuspectEpisode> episodes;
  std::map<std::string, std::string, std::less<>> evidence;
  for (const std::string& node : node_health.suspects_now()) {
    const NodeHealth health = node_health.health(node);
    if (!health.lease_expired || !health.suspected_at) continue;
    episodes.push_back({node, *health.suspected_at});
    evidence[node] = describe_evidence(node, health.evidence);
  }
  marked_.keep_only(episodes);
  MarkPolicy policy = policy_;
  policy.surges_suppressed = surges_suppressed;
  if (episodes.empty() || !policy.enabled || policy.surges_suppressed) co_return;

  std::vector<PodReadiness> pods;
  for (const SuspectEpisode& episode : episodes) {
    caches_.pods.for_each_in_index(kPodsByNodeIndex, episode.node, [&](const client::Pod& pod) {
      PodReadiness facts{.namespace_ = std::string(pod.metadata.namespace_),
                         .name = std::string(pod.metadata.name),
                         .uid = std::string(pod.metadata.uid),
                         .node = episode.node};
      const auto& conditions = pod.status.conditions;
      for (std::size_t i = 0; i < conditions.size(); ++i) {
        if (conditions[i].type != "Ready") continue;
        facts.ready = conditions[i].status == "True";
        facts.ready_condition = i;
        break;
      }
      facts.guarded = facts.ready && guarded(pod);
      pods.push_back(std::move(facts));
    });
  }
  const auto find_episode = [&](const std::string& node) -> const SuspectEpisode& {
    return *std::find_if(episodes.begin(), episodes.end(),
                         [&](const SuspectEpisode& e) { return e.node == node; });
  };
  for (const PodMark& mark : plan_not_ready_marks(episodes, pods, policy, marked_)) {
    const std::string why = evidence[mark.node];
    const std::string message =
        why +
        ": set the pod's Ready condition to False (Services stop routing to it) until its "
        "kubelet reports it again";
    if (dry_run_) {
      marked_.add(find_episode(mark.node), mark.uid);
      log(spdlog::level::info, "dry-run, not done: mark the pod NotReady",
          {{"namespace", mark.namespace_}, {"pod", mark.name}, {"why", why}});
      events_.record(pod_reference(mark), "Warning", kNodeLeaseExpiredReason,
                     "dry-run, not done: " + message);
      continue;
    }
    try {
      if (!co_await write(mark)) continue;
      marked_.add(find_episode(mark.node), mark.uid);
      log(spdlog::level::warn, "marked the pod NotReady: its node's Lease expired",
          {{"namespace", mark.namespace_}, {"pod", mark.name}, {"why", why}});
      events_.record(pod_reference(mark), "Warning", kNodeLeaseExpiredReason, message);
    } catch (const std::exception& e) {
      if (client::is_cancellation(std::current_exception())) throw;
      log(spdlog::level::warn, "could not mark the pod NotReady; trying again",
          {{"namespace", mark.namespace_}, {"pod", mark.name}, {"error", e.what()}});
    }
  }
}

boost::asio::awaitable<bool> SuspectPodMarker::write(PodMark mark) {
  // Every argument named, defaulted ones too: g++ 12 double-destroys defaulted coroutine
  // arguments.
  const client::ResourceRef status = client::resources::pods().in(mark.namespace_).sub("status");
  const client::PatchOptions options;
  const std::string now = client::format_time(std::chrono::system_clock::now());
  std::string body = json::serialize(not_ready_patch(mark.uid, mark.ready_condition, now));
  try {
    co_await client_.patch_text(status, mark.name, client::PatchType::kJson, std::move(body),
                                options);
  } catch (const client::ApiError& e) {
    // Gone, or a failed `test`: the pod was replaced or its status changed since the cache
    // showed it; the next pass judges it again from the cache.
    if (client::is_not_found(e) || client::is_invalid(e)) co_return false;
    throw;
  }
  co_return true;
}

}  // namespace rg::op
