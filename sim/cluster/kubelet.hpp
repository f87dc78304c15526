// Kubelets: one simulated kubelet per Node (every Node in the store, seeded or created through
// the API), with the kubelet's own timers (sources in sim/README.md, "Node timing"):
//  - its lease controller renews kube-node-lease/<node> (leaseDurationSeconds
//    node_lease_duration) every quarter of the lease duration plus up to 4 % jitter, counted
//    from the end of the previous renewal; a renewal that cannot reach the API server is retried
//    with backoffEnsureLease's waits (200 ms doubling to 7 s) until it can. Renewals have a
//    WorkLoop of their own (upstream's lease controller is a goroutine of its own), so a
//    kubelet busy starting pods never renews late;
//  - it computes node status every node_status_update_frequency (plus jitter) but writes it
//    only when it changed (e.g. the node lifecycle controller set Ready=Unknown) or every
//    node_status_report_frequency (5 min) -- the Lease, not the status, is the heartbeat;
//  - it starts the pods bound to its node (Pending -> Running and Ready after pod_start_delay:
//    conditions, container statuses, pod and host IPs, startTime), puts back a Ready condition
//    someone else changed on its status manager's next sync (pod_status_sync_period), and
//    removes its terminating pods after pod_termination_delay;
//  - it records the kubelet's Events (sim/cluster/kubelet_events.hpp) with its own recorder.
// A kubelet dies without any API write through KubeletControl (Cluster::stop_kubelet), or
// with the node label sim.replica-guard.io/kubelet=stopped; a slow one's renewals and status
// writes land late; its writes fail while Faults says its identity (user system:node:<node>,
// a kubelet User-Agent) cannot reach the API server.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/kubelet_events.hpp"
#include "sim/cluster/work_loop.hpp"

namespace rg::sim::cluster {

/// The User-Agent the simulated kubelets' requests would carry (for partitions).
inline constexpr std::string_view kKubeletUserAgent =
    "kubelet/v1.35.0 (linux/amd64) kubernetes/sim";

class Kubelets {
 public:
  explicit Kubelets(Context& context);
  ~Kubelets();
  Kubelets(const Kubelets&) = delete;
  Kubelets& operator=(const Kubelets&) = delete;
  boost::asio::awaitable<void> run();

 private:
  using Clock = WorkLoop::Clock;
  /// A write the kubelet made at `made` (stamped `stamp`) that reaches the store at `lands`:
  /// at once, or after a slow kubelet's delay.
  struct InFlight {
    Clock::time_point made;
    Clock::time_point lands;
    std::string stamp;
  };
  /// One node's kubelet.
  struct Kubelet {
    std::uint64_t incarnation = 0;          ///< KubeletControl's: another one means a new process
    std::unique_ptr<KubeletEvents> events;  ///< the process's recorder (null before it starts)
    // The lease controller.
    Clock::time_point next_renewal{};
    std::optional<InFlight> renewal;
    Clock::duration backoff{};  ///< backoffEnsureLease's last wait; zero while renewals succeed
    // Node status.
    Clock::time_point next_status{};
    std::optional<InFlight> status;
    std::optional<Clock::time_point> last_report;  ///< none: a fresh kubelet reports at once
    // The status manager and the pod workers.
    Clock::time_point next_pod_sync{};
    std::unordered_map<std::string, Clock::time_point> starting;  // pod key -> runs at
    std::unordered_map<std::string, Clock::time_point> stopping;  // pod key -> removed at
  };

  /// The node's kubelet, begun afresh after a restart; null when it is stopped or the node gone.
  Kubelet* running(const std::string& node_name, const NodeView* node);
  /// The pod workers and node status of one node's kubelet.
  void sync(const std::string& node_name);
  /// The lease controller of one node's kubelet.
  void sync_lease(const std::string& node_name);
  /// Each returns when it wants to run next.
  Clock::time_point sync_lease(Kubelet& kubelet, const NodeView& node, Clock::time_point now);
  Clock::time_point sync_node_status(Kubelet& kubelet, const NodeView& node, Clock::time_point now);
  Clock::time_point sync_pods(Kubelet& kubelet, const NodeView& node, Clock::time_point now);

  bool reachable(const std::string& node_name) const;
  Clock::duration jittered(Clock::duration period);
  InFlight make_write(const std::string& node_name, Clock::time_point now, std::string stamp);
  void renew_lease(const NodeView& node, const std::string& renew_time);
  void post_node_status(Kubelet& kubelet, const NodeView& node, const std::string& heartbeat);
  void start_pod(Kubelet& kubelet, const PodView& pod, const NodeView& node);
  void report_ready(const PodView& pod);

  Context& context_;
  WorkLoop loop_;  ///< node status and pods
  WorkLoop
      lease_loop_;  ///< Lease renewals: never behind the pods' work, as upstream's own goroutine
  std::unordered_map<std::string, Kubelet> kubelets_;
  std::unordered_map<std::string, std::set<std::string>> images_;  ///< pulled, per node
  std::uint64_t started_pods_ = 0;                                 // numbers pod IPs
  std::mt19937_64 random_{std::random_device{}()};
};

/// True when the node's status differs from what a healthy kubelet posts in anything but
/// heartbeat times (kubelet_node_status.go nodeStatusHasChanged): then it is written at once.
bool node_status_changed(const NodeView& node);

}  // namespace rg::sim::cluster
