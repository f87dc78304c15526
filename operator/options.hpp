// The operator's command line: flags with controller-runtime's names and defaults, parsed with
// CLI11 (`replica-guard --help` documents each one).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
}

namespace rg::op {

struct Options {
  std::string kubeconfig;
  std::string metrics_bind_address = ":8443";  ///< "0" disables
  /// HTTPS, and only for callers whose token and RBAC allow get on /metrics (secure_metrics.hpp).
  bool metrics_secure = true;
  std::string metrics_cert_path;  ///< directory of the serving certificate; empty: self-signed
  std::string metrics_cert_name = "tls.crt";
  std::string metrics_cert_key = "tls.key";
  double metrics_review_qps = 5;  ///< cap on TokenReviews + SubjectAccessReviews per second
  std::string health_probe_bind_address = ":8081";  ///< "0" disables
  bool leader_elect = false;
  std::string leader_election_id = "replica-guard";
  std::string leader_election_namespace;  ///< empty: the pod's namespace, else "default"
  std::string leader_elect_lease_duration = "15s";
  std::string leader_elect_renew_deadline = "10s";
  std::string leader_elect_retry_period = "2s";
  std::vector<std::string> namespaces;  ///< empty: all namespaces; else one informer each
  std::string deployment_selector;      ///< label selector narrowing the opted-in Deployments
  /// A failed node can strand pods of ~100 Deployments, each needing two PATCHes in turn: 16 in
  /// flight keep the API server busy (and cost a quarter less CPU per burst than 4, see
  /// bench/operator), within the client's 25 pooled connections with the Event writer and lease.
  int workers = 16;
  bool dry_run = false;
  bool detect_hpa = true;  ///< watch HPAs and leave the Deployments they scale to them
  std::string node_grace_period = "30s";
  /// How long a node's Lease may go unrenewed before the node is suspect; "0": Leases unwatched.
  std::string node_lease_grace = "24s";
  std::string scale_down_delay = "60s";
  std::string default_max_surge = "25%";
  double max_unhealthy_node_fraction = 0.55;
  std::optional<std::int32_t> max_total_surge;
  /// How often each informer's cache is compared with a fresh LIST; "0": never.
  std::string cache_consistency_check_period = "0";
  /// How often every guarded Deployment is reconciled again without an event (controller-runtime's
  /// SyncPeriod, 10h there): the safety net for a missed event or a lost write; "0": never.
  std::string sync_period = "10m";
  /// Initial lists as streaming WatchLists (sendInitialEvents), falling back to a paginated LIST
  /// when the API server refuses (client-go 1.35's WatchListClient default).
  bool watch_list = true;
  /// The client-side rate limit (kube-controller-manager's --kube-api-qps/--kube-api-burst,
  /// 20/30 there); qps 0: none, as controller-runtime does, leaving it to the API server's
  /// Priority and Fairness. The burst only counts with a qps.
  double kube_api_qps = 0;
  int kube_api_burst = 30;
  /// Taint suspect nodes replica-guard.io/suspect:NoSchedule (needs get and patch on nodes).
  bool taint_suspect_nodes = false;
  /// Set the Ready condition of guarded pods on suspect nodes to False (needs patch on
  /// pods/status).
  bool mark_suspect_pods_not_ready = false;
  /// Remove replica-guard's taint from every node and exit (the chart's pre-delete hook).
  bool remove_suspect_taints = false;
  /// On SIGTERM/SIGINT, how long reconciles and writes in flight (and the Lease release) may
  /// take before the process exits anyway (controller-runtime's GracefulShutdownTimeout); "0":
  /// no limit.
  std::string graceful_shutdown_timeout = "30s";
  std::string log_format = "text";
  int verbosity = 0;
};

/// Registers every flag on `app`, bound to `options`.
void add_flags(CLI::App& app, Options& options);

/// Checks values CLI11 cannot (durations, selector, percentages); throws std::invalid_argument
/// naming the flag and what is wrong.
void validate(const Options& options);

}  // namespace rg::op
