// /readyz: the operator is ready when the permission self-check passed (or could not run) and
// every informer has synced. Renders the kube-apiserver style answer: "ok", or with ?verbose (and
// always when failing) one "[+]name ok" / "[-]name failed: why" line per check.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "informer/shared_informer_factory.hpp"
#include "operator/http_server.hpp"

namespace rg::op {

struct ReadinessState {
  bool synced = false;  ///< every cache synced once
  /// What the self-check found missing (null: nothing missing).
  std::shared_ptr<const std::string> permission_problem;
  /// Why the self-check could not run (null: it ran, or has not finished).
  std::shared_ptr<const std::string> permission_check_skipped;
  std::vector<informer::CacheSyncResult> informers;
};

HttpReply render_readyz(const ReadinessState& state, std::string_view query);

}  // namespace rg::op
