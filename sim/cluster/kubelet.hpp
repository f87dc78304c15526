// Kubelets: one simulated kubelet per Node (every Node in the store, seeded or created through
// the API). A kubelet heartbeats -- renews its Lease in kube-node-lease and posts the node's
// Ready condition (KubeletReady) every node_status_update_frequency --, starts the pods bound
// to its node (Pending -> Running and Ready after pod_start_delay: conditions, container
// statuses, pod and host IPs, startTime), re-posts Ready for its running pods after an outage,
// and removes its terminating pods after pod_termination_delay. The node label
// sim.replica-guard.io/kubelet=stopped stops it (no heartbeats, no pod updates); removing the
// label restarts it.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

class Kubelets {
 public:
  explicit Kubelets(Context& context);
  ~Kubelets();
  Kubelets(const Kubelets&) = delete;
  Kubelets& operator=(const Kubelets&) = delete;
  boost::asio::awaitable<void> run();

 private:
  using Clock = WorkLoop::Clock;
  /// One node's kubelet: when it heartbeats next, and its pods' pending transitions.
  struct Kubelet {
    Clock::time_point next_heartbeat{};
    std::unordered_map<std::string, Clock::time_point> starting;  // pod key -> runs at
    std::unordered_map<std::string, Clock::time_point> stopping;  // pod key -> removed at
  };

  void sync(const std::string& node_name);
  void heartbeat(const NodeView& node);
  void renew_lease(const NodeView& node);
  void start_pod(const PodView& pod, const NodeView& node);
  void report_ready(const PodView& pod);

  Context& context_;
  WorkLoop loop_;
  std::unordered_map<std::string, Kubelet> kubelets_;
  std::uint64_t started_pods_ = 0;  // numbers pod IPs
};

}  // namespace rg::sim::cluster
