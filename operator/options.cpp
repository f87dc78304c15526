// The operator's flags (see options.hpp).
#include "operator/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "client/labels/label_selector.hpp"
#include "operator/annotations.hpp"
#include "operator/http_server.hpp"
#include "operator/logging.hpp"

namespace rg::op {

namespace {

// An RFC 1123 label, as namespace names are.
bool is_namespace_name(std::string_view name) {
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return !name.empty() && name.size() <= 63 && alnum(name.front()) && alnum(name.back()) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-'; });
}

}  // namespace

void add_flags(CLI::App& app, Options& o) {
  app.add_option(
      "--kubeconfig", o.kubeconfig,
      "Path to a kubeconfig. Else $KUBECONFIG, the in-cluster service account, ~/.kube/config");
  app.add_option("--metrics-bind-address", o.metrics_bind_address,
                 "Address the /metrics endpoint binds to; \"0\" disables it")
      ->capture_default_str();
  app.add_flag("--metrics-secure,!--no-metrics-secure", o.metrics_secure,
               "Serve /metrics over HTTPS (TLS >= 1.2, HTTP/1.1: there is no --enable-http2) to "
               "callers whose bearer token passes a TokenReview and whose SubjectAccessReview "
               "allows get on /metrics (needs create on tokenreviews and subjectaccessreviews). "
               "--metrics-secure=false serves plain HTTP to anyone");
  app.add_option("--metrics-cert-path", o.metrics_cert_path,
                 "Directory holding the metrics server's certificate and key (e.g. a mounted "
                 "kubernetes.io/tls Secret), reloaded when they change; absent: a self-signed "
                 "certificate generated at start");
  app.add_option("--metrics-cert-name", o.metrics_cert_name,
                 "Certificate file name in --metrics-cert-path")
      ->capture_default_str();
  app.add_option("--metrics-cert-key", o.metrics_cert_key, "Key file name in --metrics-cert-path")
      ->capture_default_str();
  app.add_option("--metrics-review-qps", o.metrics_review_qps,
                 "Most TokenReviews and SubjectAccessReviews per second the secure metrics "
                 "endpoint sends for answers it has not cached (burst: twice this); unknown "
                 "tokens over the cap get 401 without a review")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--health-probe-bind-address", o.health_probe_bind_address,
                 "Address the /healthz and /readyz endpoints bind to; \"0\" disables them")
      ->capture_default_str();
  app.add_flag("--leader-elect", o.leader_elect,
               "Elect a leader through a Lease, so that of several replicas only one writes");
  app.add_option("--leader-election-id", o.leader_election_id, "Name of the leader-election Lease")
      ->capture_default_str();
  app.add_option("--leader-election-namespace", o.leader_election_namespace,
                 "Namespace of the Lease (default: the pod's namespace, else \"default\")");
  app.add_option("--leader-elect-lease-duration", o.leader_elect_lease_duration,
                 "How long standbys wait before taking over a Lease that is not renewed")
      ->capture_default_str();
  app.add_option("--leader-elect-renew-deadline", o.leader_elect_renew_deadline,
                 "How long the leader keeps trying to renew before it stops leading")
      ->capture_default_str();
  app.add_option("--leader-elect-retry-period", o.leader_elect_retry_period,
                 "How often candidates try to take, and the leader to renew, the Lease")
      ->capture_default_str();
  app.add_option("--namespace", o.namespaces,
                 "Watch only this namespace (repeatable, or comma-separated: a,b); absent: all "
                 "namespaces")
      ->allow_extra_args(false)
      ->delimiter(',');
  app.add_option("--deployment-selector", o.deployment_selector,
                 "Label selector that opted-in Deployments must also match (e.g. tier=web)");
  app.add_option("--workers", o.workers, "Concurrent reconcile workers")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_flag("--dry-run", o.dry_run,
               "Compute, log, emit Events and metrics, but never change a Deployment");
  app.add_flag("--detect-hpa,!--no-detect-hpa", o.detect_hpa,
               "Watch HorizontalPodAutoscalers and leave the Deployments they scale to them "
               "(default; needs list/watch on horizontalpodautoscalers.autoscaling). "
               "--detect-hpa=false stops watching them, and then guards those Deployments like "
               "any other");
  app.add_option("--node-grace-period", o.node_grace_period,
                 "How long a node must be NotReady/Unknown before its pods count as stranded "
                 "(per Deployment: annotation replica-guard.io/node-grace-period)")
      ->capture_default_str();
  app.add_option("--node-lease-grace", o.node_lease_grace,
                 "How long a node's Lease in kube-node-lease may go without an observed renewal "
                 "(while most other nodes' renew) before its pods count as stranded, ahead of "
                 "NotReady; \"0\" stops watching node Leases")
      ->capture_default_str();
  app.add_flag("--taint-suspect-nodes", o.taint_suspect_nodes,
               "Taint suspect nodes replica-guard.io/suspect:NoSchedule so that nothing more is "
               "scheduled there, until their Lease renews (needs get and patch on nodes, which "
               "also allow other node edits: see the README). Off: taints a previous run left "
               "are removed when the permission allows it");
  app.add_flag("--mark-suspect-pods-not-ready", o.mark_suspect_pods_not_ready,
               "Set the Ready condition of guarded Deployments' pods on a suspect node to False "
               "(as the node lifecycle controller does ~50 s after a death), once per suspicion, "
               "with a Warning Event NodeLeaseExpired, so that Services stop routing to them; a "
               "live kubelet puts its Ready back on its next status sync (needs patch on "
               "pods/status)");
  app.add_flag("--remove-suspect-taints", o.remove_suspect_taints,
               "Remove replica-guard.io/suspect from every node and exit (the Helm chart's "
               "pre-delete hook)");
  app.add_option("--scale-down-delay", o.scale_down_delay,
                 "How long the surge must be unneeded before scaling back down")
      ->capture_default_str();
  app.add_option("--default-max-surge", o.default_max_surge,
                 "Most replicas added on top of desired, absolute or % of desired "
                 "(per Deployment: annotation replica-guard.io/max-surge)")
      ->capture_default_str();
  app.add_option("--max-unhealthy-node-fraction", o.max_unhealthy_node_fraction,
                 "Above this fraction of unhealthy nodes, stop surging: a partition is likelier "
                 "than dead nodes")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-total-surge", o.max_total_surge,
                 "Cap on the replicas added across all Deployments")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cache-consistency-check-period", o.cache_consistency_check_period,
                 "How often to compare each informer's cache with a fresh LIST (e.g. 10m); a "
                 "confirmed difference is logged and counted in "
                 "informer_cache_inconsistencies_total. \"0\" never checks")
      ->capture_default_str();
  app.add_option("--sync-period", o.sync_period,
                 "How often to reconcile every guarded Deployment again without an event (the "
                 "safety net for missed events), e.g. 10m; at least 1s, \"0\" never")
      ->capture_default_str();
  app.add_flag("--watch-list,!--no-watch-list", o.watch_list,
               "Initial lists as streaming WatchLists (sendInitialEvents=true), falling back to "
               "paginated LISTs when the API server refuses them")
      ->capture_default_str();
  app.add_option("--kube-api-qps", o.kube_api_qps,
                 "Client-side rate limit of API requests per second (with --kube-api-burst); 0: "
                 "none, the API server's Priority and Fairness limits instead")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--kube-api-burst", o.kube_api_burst,
                 "Requests that may go at once before --kube-api-qps paces them (only with "
                 "--kube-api-qps)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--graceful-shutdown-timeout", o.graceful_shutdown_timeout,
                 "On SIGTERM, how long reconciles and writes in flight and the Lease release may "
                 "take; past it the process exits with code 1 anyway (\"0\": no limit)")
      ->capture_default_str();
  app.add_option("--log-format", o.log_format, "Log line format: text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("-v", o.verbosity, "More logging (repeat: -vvv for trace)");
}

void validate(const Options& o) {
  const auto check_duration = [](std::string_view flag, const std::string& value) {
    try {
      parse_duration(value);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(flag) + ": " + e.what());
    }
  };
  check_duration("--leader-elect-lease-duration", o.leader_elect_lease_duration);
  check_duration("--leader-elect-renew-deadline", o.leader_elect_renew_deadline);
  check_duration("--leader-elect-retry-period", o.leader_elect_retry_period);
  check_duration("--node-grace-period", o.node_grace_period);
  check_duration("--node-lease-grace", o.node_lease_grace);
  check_duration("--scale-down-delay", o.scale_down_delay);
  check_duration("--cache-consistency-check-period", o.cache_consistency_check_period);
  if (parse_duration(o.node_lease_grace).count() == 0) {
    for (const auto& [on, flag] :
         {std::pair{o.taint_suspect_nodes, "--taint-suspect-nodes"},
          std::pair{o.mark_suspect_pods_not_ready, "--mark-suspect-pods-not-ready"}}) {
      if (on)
        throw std::invalid_argument(std::string(flag) +
                                    " acts on nodes the Lease signal suspects, and "
                                    "--node-lease-grace=0 turns that signal off: give a grace "
                                    "(default 24s) or drop the flag");
    }
  }
  check_duration("--sync-period", o.sync_period);
  if (const auto sync = parse_duration(o.sync_period);
      sync.count() > 0 && sync < std::chrono::seconds(1)) {
    throw std::invalid_argument("--sync-period: " + o.sync_period +
                                " is shorter than the minimum resync period of 1s; use 1s or "
                                "more, or 0 to turn periodic reconciles off");
  }
  check_duration("--graceful-shutdown-timeout", o.graceful_shutdown_timeout);
  try {
    IntOrPercent::parse(o.default_max_surge);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--default-max-surge: ") + e.what());
  }
  for (const auto* flag : {&o.metrics_bind_address, &o.health_probe_bind_address}) {
    if (*flag == "0") continue;
    try {
      parse_bind_address(*flag);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(flag == &o.metrics_bind_address
                                                  ? "--metrics-bind-address: "
                                                  : "--health-probe-bind-address: ") +
                                  e.what());
    }
  }
  // Port 0 picks two free ports: two servers, so only a fixed port shared is refused.
  if (o.metrics_secure && o.metrics_bind_address != "0" &&
      o.metrics_bind_address == o.health_probe_bind_address &&
      parse_bind_address(o.metrics_bind_address).port() != 0)
    throw std::invalid_argument(
        "--metrics-bind-address: with --metrics-secure it must differ from "
        "--health-probe-bind-address (the probes stay plain HTTP for the kubelet)");
  if (!o.metrics_cert_path.empty() && (o.metrics_cert_name.empty() || o.metrics_cert_key.empty()))
    throw std::invalid_argument("--metrics-cert-name and --metrics-cert-key may not be empty");
  if (!o.deployment_selector.empty()) {
    try {
      client::LabelSelector::parse(o.deployment_selector);
    } catch (const std::exception& e) {
      throw std::invalid_argument(std::string("--deployment-selector: ") + e.what());
    }
  }
  for (auto it = o.namespaces.begin(); it != o.namespaces.end(); ++it) {
    if (!is_namespace_name(*it)) {
      throw std::invalid_argument("--namespace: \"" + *it +
                                  "\" is not a namespace name (lower-case letters, digits and "
                                  "'-', at most 63, starting and ending with a letter or digit)");
    }
    if (std::find(o.namespaces.begin(), it, *it) != it)
      throw std::invalid_argument("--namespace: \"" + *it + "\" is given twice");
  }
  if (o.kube_api_qps > 0 && o.kube_api_burst < 1) {
    throw std::invalid_argument("--kube-api-burst: must be at least 1 with --kube-api-qps (got " +
                                std::to_string(o.kube_api_burst) + ")");
  }
  parse_log_format(o.log_format);
}

}  // namespace rg::op
