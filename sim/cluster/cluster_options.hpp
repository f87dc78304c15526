// ClusterOptions: the simulated cluster's timing knobs, named after the Kubernetes flags they
// mirror, with Kubernetes' defaults. Every knob is a plain duration, so tests run the same
// timeline in milliseconds (grace 50 ms instead of 50 s).
#pragma once

#include <chrono>
#include <string>

namespace rg::sim {

struct ClusterOptions {
  using Duration = std::chrono::milliseconds;

  /// kube-controller-manager --node-monitor-grace-period: how long a node may go without a
  /// heartbeat (node status or Lease) before it is marked Ready=Unknown. 50 s since 1.32.
  Duration node_monitor_grace_period = std::chrono::seconds(50);
  /// kubelet --node-status-update-frequency: the heartbeat interval (node status and Lease).
  Duration node_status_update_frequency = std::chrono::seconds(10);
  /// What the default toleration (kube-apiserver --default-unreachable-toleration-seconds,
  /// 300) lasts: a pod is evicted from an unreachable/not-ready node after
  /// tolerationSeconds / 300 * pod_eviction_timeout (so 300 s unless scaled; a pod that
  /// tolerates the taint without tolerationSeconds stays, one that does not is evicted at once).
  Duration pod_eviction_timeout = std::chrono::seconds(300);
  /// How long a kubelet takes from a pod bound to its node to the pod Running and Ready
  /// (image pull, container start, readiness probe).
  Duration pod_start_delay = std::chrono::seconds(2);
  /// How long a kubelet takes to stop a deleted (terminating) pod before it removes it.
  Duration pod_termination_delay = std::chrono::seconds(1);
  /// Retry delay of a controller whose write failed.
  Duration retry_delay = std::chrono::milliseconds(200);
  /// The kubelet version nodes report (status.nodeInfo.kubeletVersion).
  std::string kubelet_version = "v1.35.0";

  /// Every duration multiplied by `factor` (0.001: seconds become milliseconds), for tests.
  ClusterOptions scaled(double factor) const;
};

}  // namespace rg::sim
