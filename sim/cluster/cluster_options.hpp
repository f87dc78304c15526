// ClusterOptions: the simulated cluster's timing knobs, named after the Kubernetes flags they
// mirror, with Kubernetes 1.35's defaults (sources in sim/README.md, "Node timing"). Every knob
// is a plain duration or rate, so tests run the same timeline in milliseconds (scaled()).
#pragma once

#include <chrono>
#include <string>

namespace rg::sim {

struct ClusterOptions {
  using Duration = std::chrono::milliseconds;

  // --- kubelet ---
  /// kubelet --node-lease-duration-seconds (KubeletConfiguration nodeLeaseDurationSeconds, 40):
  /// the Lease's spec.leaseDurationSeconds; the kubelet renews it every quarter of it
  /// (nodeLeaseRenewIntervalFraction 0.25: 10 s), plus up to 4 % jitter.
  Duration node_lease_duration = std::chrono::seconds(40);
  /// kubelet --node-status-update-frequency: how often the kubelet computes node status (and
  /// writes it if it changed).
  Duration node_status_update_frequency = std::chrono::seconds(10);
  /// KubeletConfiguration nodeStatusReportFrequency (5 min): the kubelet writes an unchanged
  /// node status (a new lastHeartbeatTime) only this often; the Lease is the heartbeat.
  Duration node_status_report_frequency = std::chrono::minutes(5);
  /// The kubelet status manager's sync period (status_manager.go syncPeriod, 10 s): how soon a
  /// live kubelet puts back a pod status someone else changed (e.g. Ready=False written by the
  /// node lifecycle controller).
  Duration pod_status_sync_period = std::chrono::seconds(10);
  /// The lease controller's backoff while it cannot reach the API server (backoffEnsureLease:
  /// 100 ms doubled before each wait, so 200 ms first, at most maxBackoff 7 s).
  Duration lease_backoff_initial = std::chrono::milliseconds(100);
  Duration lease_backoff_max = std::chrono::seconds(7);

  // --- kube-controller-manager, node lifecycle controller ---
  /// --node-monitor-period: how often the controller checks every node's health (5 s).
  Duration node_monitor_period = std::chrono::seconds(5);
  /// --node-monitor-grace-period: how long a node may go unobserved (no new node status
  /// heartbeat, no Lease renewal) before it is marked Ready=Unknown. 50 s since 1.32.
  Duration node_monitor_grace_period = std::chrono::seconds(50);
  /// --node-eviction-rate: nodes per second given the NoExecute taint in a healthy zone
  /// (and in a fully disrupted zone while another zone is healthy).
  double node_eviction_rate = 0.1;
  /// --secondary-node-eviction-rate: the rate in a partially disrupted zone of a large cluster.
  double secondary_node_eviction_rate = 0.01;
  /// --unhealthy-zone-threshold: the share of not-Ready nodes (at least 3) that makes a zone
  /// partially disrupted.
  double unhealthy_zone_threshold = 0.55;
  /// --large-cluster-size-threshold: zones with more nodes than this keep tainting at the
  /// secondary rate when partially disrupted; smaller ones stop.
  int large_cluster_size_threshold = 50;
  /// kube-controller-manager --leader-elect-renew-deadline (10 s): an API outage longer than
  /// this costs it its leadership, so it restarts, and its node lifecycle controller begins
  /// afresh when the API is back.
  Duration leader_elect_renew_deadline = std::chrono::seconds(10);

  // --- taint eviction, pods ---
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
  /// Whether the components record Events (core/v1 through client-go's recorder, the
  /// scheduler's events.k8s.io/v1 with series), as a real cluster's do. Off saves the writes
  /// in benchmarks that do not look at them (kube-sim --record-events=false).
  bool record_events = true;
  /// The events.k8s.io recorder's finishTime (client-go tools/events, 6 min): a series not
  /// seen for this long gets its final count written and is forgotten; its check runs as often.
  Duration event_series_finish = std::chrono::minutes(6);
  /// The kubelet version nodes report (status.nodeInfo.kubeletVersion).
  std::string kubelet_version = "v1.35.0";

  /// Every duration multiplied by `factor` and every rate divided by it (0.001: seconds become
  /// milliseconds), for tests.
  ClusterOptions scaled(double factor) const;
  /// The kubelet's Lease renewal interval: node_lease_duration x 0.25.
  Duration lease_renew_interval() const { return node_lease_duration / 4; }
};

}  // namespace rg::sim
