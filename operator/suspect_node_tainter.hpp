// SuspectNodeTainter: carries out plan_suspect_taints() (--taint-suspect-nodes) against the API
// server. Each write reads the node first and sends a JSON patch guarded by that read's
// resourceVersion (suspect_taint_patch), so a taint another controller added meanwhile is never
// dropped: a failed guard is read and tried again. In --dry-run it only logs and records Events
// ("dry-run, not done"), once for as long as the change stays pending. Also the whole of
// `replica-guard --remove-suspect-taints` (remove_all), the Helm chart's pre-delete hook.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "client/model/node.hpp"
#include "informer/indexer.hpp"
#include "operator/suspect_node_taints.hpp"

namespace rg::client {
class EventRecorder;
class RestClient;
}  // namespace rg::client

namespace rg::op {

class SuspectNodeTainter {
 public:
  /// `events` may be null (the cleanup mode records none).
  SuspectNodeTainter(client::RestClient& client, client::EventRecorder* events, bool enabled,
                     bool dry_run);

  /// Brings every cached node's taint in line with the policy: `suspects` (sorted) from the
  /// NodeLeaseMonitor, `surges_suppressed` from the unhealthy node fraction. Failures are logged
  /// and left for the next call; throws only for cancellation and, when `stop_on_forbidden`, a
  /// Forbidden answer (the flag is off and no RBAC grants node patches: nothing to clean up with).
  boost::asio::awaitable<void> sync(const informer::Indexer<client::Node>& nodes,
                                    std::vector<std::string> suspects, bool surges_suppressed,
                                    bool stop_on_forbidden = false);

  /// Lists the nodes and removes replica-guard's taint from each that carries it; returns how many.
  /// Throws client::ApiError when a node cannot be listed or patched.
  boost::asio::awaitable<std::size_t> remove_all();

 private:
  /// Adds or removes the taint on `node`; false when the node is gone or already so.
  boost::asio::awaitable<bool> apply(std::string node, bool add);

  client::RestClient& client_;
  client::EventRecorder* events_;
  TaintPolicy policy_;
  bool dry_run_;
  /// --dry-run: the changes last reported, so each is logged and recorded once, not every pass
  /// (sync() is awaited by one coroutine at a time: after_sweep, or a term's first pass).
  std::vector<TaintChange> reported_;
};

}  // namespace rg::op
