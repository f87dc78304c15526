// kube-sim: an embedded Kubernetes API server with a simulated cluster, for tests, demos and
// benchmarks. See README.md.
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cluster/cluster.hpp"
#include "sim/cluster/kubelet_admin.hpp"
#include "sim/server.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kube-sim: an embedded Kubernetes API server with a simulated cluster"};
  rg::sim::ServerOptions options;
  rg::sim::ClusterOptions cluster_options;
  std::string kubeconfig;
  bool insecure_http = false;
  std::string authorization_mode = "RBAC";
  int bookmark_seconds = 60;
  std::size_t nodes = 3;
  double time_scale = 1.0;
  auto seconds = [](std::chrono::milliseconds& target) {
    return [&target](double value) {
      target = std::chrono::milliseconds(static_cast<std::int64_t>(value * 1000));
    };
  };
  app.add_option("--address", options.address, "Address to listen on")->capture_default_str();
  app.add_option("--port", options.port, "Port to listen on (0 = an ephemeral port)")
      ->capture_default_str();
  app.add_option("--io-threads", options.io_threads, "Threads serving requests")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  std::vector<std::string> feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "kube-apiserver's feature gates, NAME=true|false, comma-separated; known: "
                 "WatchList (default true; false refuses watches with sendInitialEvents)")
      ->delimiter(',');
  app.add_option("--watch-history", options.store.watch_history,
                 "Events kept per resource for watch resumes (older resourceVersions get 410)")
      ->capture_default_str();
  app.add_option("--bookmark-interval", bookmark_seconds, "Seconds between watch BOOKMARK events")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--write-kubeconfig", kubeconfig,
                 "Write an admin kubeconfig for this server to PATH");
  app.add_flag("--insecure-http", insecure_http, "Serve plain HTTP instead of HTTPS");
  app.add_option("--tls-cert-file", options.tls.cert_file,
                 "PEM certificate chain to serve HTTPS with (default: a CA and a serving "
                 "certificate for 127.0.0.1 and localhost generated at start)");
  app.add_option("--tls-private-key-file", options.tls.private_key_file,
                 "PEM private key of --tls-cert-file");
  app.add_option("--client-ca-file", options.tls.client_ca_file,
                 "PEM CA bundle that client certificates must chain to; CN is the user, O the "
                 "groups (default: the generated CA, whose key signs the admin kubeconfig's "
                 "client certificate; none with --tls-cert-file)");
  auto* mode_option =
      app.add_option("--authorization-mode", authorization_mode,
                     "RBAC: client certificates and bearer tokens authenticate (401 without) and "
                     "the stored RBAC objects "
                     "authorize (403); AlwaysAllow: every request acts as the administrator "
                     "(the default with --insecure-http: kubectl sends no credentials over HTTP)")
          ->check(CLI::IsMember({"RBAC", "AlwaysAllow"}))
          ->capture_default_str();
  app.add_flag("--anonymous-auth", options.auth.anonymous,
               "With RBAC: requests without credentials act as system:anonymous instead of "
               "getting 401");
  app.add_option("--api-audiences", options.auth.api_audiences,
                 "Audiences accepted in ServiceAccount tokens, and the default of a TokenRequest")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--nodes", nodes, "Ready nodes to create at start, each with a simulated kubelet")
      ->capture_default_str();
  app.add_option_function<double>(
      "--node-monitor-grace-period", seconds(cluster_options.node_monitor_grace_period),
      "Seconds without a heartbeat before a node goes Ready=Unknown (default 50)");
  app.add_option_function<double>(
      "--node-monitor-period", seconds(cluster_options.node_monitor_period),
      "Seconds between the node lifecycle controller's health checks of every node (default 5)");
  app.add_option("--node-eviction-rate", cluster_options.node_eviction_rate,
                 "Nodes per second given the NoExecute taint in a healthy zone")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--secondary-node-eviction-rate", cluster_options.secondary_node_eviction_rate,
                 "Nodes per second tainted in a partially disrupted zone of a large cluster")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--unhealthy-zone-threshold", cluster_options.unhealthy_zone_threshold,
                 "Share of not-Ready nodes (at least 3) that makes a zone partially disrupted")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--large-cluster-size-threshold", cluster_options.large_cluster_size_threshold,
                 "Zones with more nodes keep tainting at the secondary rate when partially "
                 "disrupted; smaller ones stop")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option_function<double>(
      "--leader-elect-renew-deadline", seconds(cluster_options.leader_elect_renew_deadline),
      "Seconds of API outage after which kube-controller-manager's node lifecycle controller "
      "restarts (default 10)");
  app.add_option_function<double>(
      "--node-status-update-frequency", seconds(cluster_options.node_status_update_frequency),
      "Seconds between the kubelet's node status checks; a status is written only when it "
      "changed or --node-status-report-frequency passed (default 10)");
  app.add_option_function<double>(
      "--node-status-report-frequency", seconds(cluster_options.node_status_report_frequency),
      "Seconds after which the kubelet writes an unchanged node status (default 300)");
  app.add_option_function<double>(
      "--node-lease-duration-seconds", seconds(cluster_options.node_lease_duration),
      "The kubelet's Lease duration; it renews every quarter of it (default 40)");
  app.add_option_function<double>("--pod-eviction-timeout",
                                  seconds(cluster_options.pod_eviction_timeout),
                                  "Seconds a pod stays on an unreachable node, as the default "
                                  "300 s toleration (default 300)");
  app.add_option_function<double>("--pod-start-delay", seconds(cluster_options.pod_start_delay),
                                  "Seconds from a pod bound to Running and Ready (default 2)");
  app.add_option("--record-events", cluster_options.record_events,
                 "Whether the simulated components record Events, as a real cluster's do "
                 "(false saves the writes in benchmarks)")
      ->capture_default_str();
  app.add_option("--time-scale", time_scale,
                 "Multiply every cluster timing by this factor (0.1: ten times faster)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  options.watch.bookmark_interval = std::chrono::seconds(bookmark_seconds);
  for (const std::string& gate : feature_gates) {
    if (gate == "WatchList=true" || gate == "WatchList=false") {
      options.watch.watch_list = gate == "WatchList=true";
    } else {
      std::cerr << "kube-sim: --feature-gates: \"" << gate
                << "\" is not a known gate setting (known: WatchList=true, WatchList=false)\n";
      return 2;
    }
  }
  if (insecure_http && !(options.tls.cert_file.empty() && options.tls.private_key_file.empty() &&
                         options.tls.client_ca_file.empty())) {
    std::cerr << "kube-sim: --insecure-http serves plain HTTP; leave out --tls-cert-file, "
                 "--tls-private-key-file and --client-ca-file\n";
    return 2;
  }
  options.tls.enabled = !insecure_http;
  // kubectl drops credentials on plain HTTP, so there RBAC only when asked for explicitly (like the
  // insecure port kube-apiserver once had, which skipped authentication and authorization).
  options.auth.enabled =
      authorization_mode == "RBAC" && (!insecure_http || mode_option->count() > 0);

  try {
    rg::sim::Server server(options);
    boost::asio::io_context io;
    rg::sim::Cluster cluster(server.store(), cluster_options.scaled(time_scale), io.get_executor());
    cluster.seed_nodes(nodes);
    cluster.use_faults(server.faults());
    server.route_admin("/sim/kubelets", rg::sim::kubelet_admin(cluster));
    if (!kubeconfig.empty()) server.write_kubeconfig(kubeconfig);
    std::cout << "kube-sim serving on " << server.address() << std::endl;
    boost::asio::cancellation_signal stop;
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) stop.emit(boost::asio::cancellation_type::terminal);
    });
    boost::asio::co_spawn(io, cluster.run(),
                          boost::asio::bind_cancellation_slot(
                              stop.slot(), [&](const std::exception_ptr&) { signals.cancel(); }));
    io.run();
    server.stop();
  } catch (const std::exception& error) {
    std::cerr << "kube-sim: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
