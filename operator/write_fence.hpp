// WriteFence: the leader's last check before a write leaves the operator. With --leader-elect,
// the transport asks it immediately before each request is written to its socket (not once per
// reconcile): a write when this replica no longer leads -- its renew deadline, on the monotonic
// clock, has passed -- is stopped there, logged, and counted in
// replica_guard_fenced_writes_total. Reads, and the writes leader election itself makes to its
// Lease, always pass; so do access reviews (asking is not writing).
//
// What it cannot close: a pause (SIGSTOP, a VM freeze, a long GC-like stall of the thread)
// between this check and the bytes reaching the socket. The Lease is not a fence token the API
// server checks, so such a write lands; the renew deadline is shorter than the lease duration
// the other replicas wait, which leaves (lease duration - renew deadline) of margin for
// everything but such a pause.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "client/transport/http_message.hpp"

namespace rg::op {

/// Thrown from the transport for a write stopped by the fence: it never reached the socket.
struct FencedWrite : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WriteFence {
 public:
  /// `leading` is asked for each write (LeaderElector::is_leader: a monotonic deadline);
  /// `lease_path` is the API path of the leader-election Lease ("/apis/coordination.k8s.io/v1/
  /// namespaces/NS/leases/NAME"), whose create and updates pass.
  WriteFence(std::function<bool()> leading, std::string lease_path, prometheus::Registry& registry);

  /// Whether `method` `target` is a write the fence stops when not leading.
  bool fenced(std::string_view method, std::string_view target) const;
  /// The transport's before_write hook: throws FencedWrite for a fenced write when not leading.
  void check(const client::HttpRequest& request);
  /// Writes stopped so far.
  double stopped() const { return stopped_.Value(); }

 private:
  std::function<bool()> leading_;
  std::string lease_path_;
  std::string lease_collection_;
  prometheus::Counter& stopped_;
};

}  // namespace rg::op
