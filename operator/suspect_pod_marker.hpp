// SuspectPodMarker: carries out plan_not_ready_marks() (--mark-suspect-pods-not-ready) against
// the API server. For the guarded Deployments' pods on a suspect node it sets the Ready
// condition to False through the pods/status subresource (not_ready_patch: a JSON patch that
// tests the pod's uid and that the condition is still Ready=True), so that Services stop routing
// to them within the Lease grace instead of the node lifecycle controller's ~50 s, and records a
// Warning Event NodeLeaseExpired on each. Once per pod and suspect episode; a failed write is
// tried again at the next pass. In --dry-run it only logs and records the Event ("dry-run, not
// done"), once per pod and episode.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <optional>
#include <string>

#include "client/model/deployment.hpp"
#include "client/model/pod.hpp"
#include "operator/cache_view.hpp"
#include "operator/suspect_pod_marks.hpp"

namespace rg::client {
class EventRecorder;
class RestClient;
}  // namespace rg::client

namespace rg::op {

class NodeLeaseMonitor;

/// What the marker reads: Deployments (deployment_indexers) and Pods (pod_indexers).
struct MarkerCaches {
  CacheView<client::Deployment> deployments;
  CacheView<client::Pod> pods;
  /// The HorizontalPodAutoscaler targeting a Deployment, if any (empty without --detect-hpa).
  std::function<std::optional<std::string>(const std::string& namespace_, const std::string& name)>
      hpa_for;
};

class SuspectPodMarker {
 public:
  SuspectPodMarker(client::RestClient& client, client::EventRecorder& events, MarkerCaches caches,
                   bool enabled, bool dry_run);

  /// Marks the pods the policy picks among those on the monitor's suspect nodes now.
  /// `surges_suppressed` comes from the unhealthy node fraction. Failures are logged and left
  /// for the next call; throws only for cancellation. Awaited by one coroutine at a time.
  boost::asio::awaitable<void> sync(NodeLeaseMonitor& node_health, bool surges_suppressed);

 private:
  /// Whether a guarded Deployment (opted in, not paused or being deleted, not left to an HPA)
  /// selects `pod`.
  bool guarded(const client::Pod& pod) const;
  /// Writes the mark; false when the pod is gone or no longer what the cache showed.
  boost::asio::awaitable<bool> write(PodMark mark);

  client::RestClient& client_;
  client::EventRecorder& events_;
  MarkerCaches caches_;
  MarkPolicy policy_;
  bool dry_run_;
  MarkedPods marked_;
};

}  // namespace rg::op
