// The run at Kubernetes' published limits: 5,000 nodes, 150,000 pods, and 10,000 Deployments
// guarded by the whole replica-guard binary, with a zone failure.
//
// kube-sim runs in this process with its simulated cluster (sim/cluster: a kubelet per node
// renewing its Lease every 10 s and computing node status every 10 s, the node lifecycle
// controller with its zone-aware eviction limits, taint eviction, the ReplicaSet and Deployment
// controllers, the scheduler), nodes spread round-robin over three zones
// (topology.kubernetes.io/region and zone labels), so that every Deployment has pods in every zone,
// as the default topology spread puts them. replica-guard runs as its own process (its binary,
// --operator) against it over loopback HTTP, so its resident memory and CPU are its own
// (/proc/PID); kube-sim's CPU is this process's minus the bench thread's.
//
// The bench reports:
//  - seeding and the cluster's start (its informers, the kubelets' first Lease renewals);
//  - the operator's time to synced (spawned -> a marker Deployment created after its start is
//    reconciled: queued behind the whole initial list) and its steady RSS;
//  - CPU at rest: the operator's and kube-sim's CPU over --rest-seconds (60) with nothing failing
//    (the Lease renewals arrive at nodes / 10 s);
//  - a zone failure: the kubelets of every node of one zone (a third) die at once, without any API
//    write (Cluster::stop_kubelet, as POST /sim/kubelets/NODE/stop). Each affected Deployment's
//    (one with a pod on a dead node) first scale PATCH answered 2xx is taken from kube-sim's write
//    record (/sim/writes): its time from the death, p50/p99/max, with the operator's client-side
//    flow control (--kube-api-qps, --kube-api-burst) in force; the CPU of both sides meanwhile;
//  - the settling: --settle-seconds (90) more with the zone still dead, before any pod's eviction
//    is due. Every affected Deployment should hold its surge; a scale-down in this window (its
//    nodes have not come back) is churn, and a Deployment scaled down and up again flaps. Both
//    are counted from the write record's spec.replicas.
// It exits 1 when an affected Deployment got no scale PATCH before the deadline (the CI runs it
// on a tiny cluster at --time-scale 0.1 for that; no timing is asserted).
//
//   build/bench/scale/scale_bench [--nodes 5000] [--deployments 10000] [--pods-per-deployment 15]
//       [--zones 3] [--kube-api-qps 500] [--kube-api-burst 1000] [--workers 16]
//       [--rest-seconds 60] [--settle-seconds 90] [--time-scale 1] [--record-events true]
//       [--sim-io-threads 1]
//       [--operator build/operator/replica-guard] [--operator-arg ARG]... [--operator-log PATH]
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bench/process_stats.hpp"
#include "sim/cluster/cluster.hpp"
#include "sim/server.hpp"

namespace {
namespace asio = boost::asio;
namespace json = boost::json;
using rg::bench::Clock;

// The operator's process, as /proc shows it.
struct ProcessSample {
  double cpu_seconds = 0;   // utime + stime
  double rss_mib = 0;       // VmRSS
  double peak_rss_mib = 0;  // VmHWM
};

ProcessSample sample(pid_t pid) {
  ProcessSample out;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  out.cpu_seconds = double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  while (std::getline(status, line)) {
    const auto kib = [&] { return std::stod(line.substr(line.find(':') + 1)) / 1024.0; };
    if (line.starts_with("VmRSS:")) out.rss_mib = kib();
    if (line.starts_with("VmHWM:")) out.peak_rss_mib = kib();
  }
  return out;
}

// kube-sim's CPU: this process's, less the bench's own thread (which mostly waits).
double sim_cpu_seconds() {
  return rg::bench::process_cpu_seconds() - rg::bench::thread_cpu_seconds();
}

pid_t spawn(const std::vector<std::string>& args, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0)
    throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(error) +
                             " (give the replica-guard binary with --operator)");
  return pid;
}

// Polls `done` every 20 ms until it holds or `deadline` passes (the operator's exit fails it).
template <class Done>
bool wait_for(pid_t pid, Clock::time_point deadline, Done done) {
  while (!done()) {
    if (Clock::now() > deadline) return false;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      throw std::runtime_error("replica-guard exited (status " + std::to_string(status) +
                               "); see its log");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

double quantile(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * double(sorted.size())))];
}

std::string seconds_flag(double seconds) { return fmt::format("{:g}s", seconds); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scale_bench: replica-guard at Kubernetes' published limits, and a zone failure"};
  std::size_t nodes = 5000, deployments = 10000, pods_per_deployment = 15, zones = 3;
  double qps = 500, time_scale = 1, rest_seconds = 60, settle_seconds = 90;
  int burst = 1000, workers = 16;
  rg::sim::ServerOptions sim_options;
  rg::sim::ClusterOptions cluster_options;
  std::string operator_binary =
      (std::filesystem::path(argv[0]).parent_path() / "../../operator/replica-guard").string();
  std::string operator_log = (std::filesystem::temp_directory_path() /
                              ("scale-bench-" + std::to_string(::getpid()) + ".log"))
                                 .string();
  app.add_option("--nodes", nodes)->capture_default_str();
  app.add_option("--deployments", deployments)->capture_default_str();
  app.add_option("--pods-per-deployment", pods_per_deployment)->capture_default_str();
  app.add_option("--zones", zones, "zones the nodes are spread over; one fails")
      ->check(CLI::Range(2, 26))
      ->capture_default_str();
  app.add_option("--kube-api-qps", qps, "the operator's client-side rate limit")
      ->capture_default_str();
  app.add_option("--kube-api-burst", burst, "the operator's --kube-api-burst")
      ->capture_default_str();
  app.add_option("--workers", workers, "the operator's --workers")->capture_default_str();
  app.add_option("--rest-seconds", rest_seconds, "how long CPU at rest is measured")
      ->capture_default_str();
  app.add_option("--settle-seconds", settle_seconds,
                 "how long the zone stays dead after the last first scale PATCH (before "
                 "--time-scale)")
      ->capture_default_str();
  app.add_option("--time-scale", time_scale,
                 "multiplies the cluster's and the operator's timings (0.1: ten times faster)")
      ->capture_default_str();
  app.add_option("--record-events", cluster_options.record_events,
                 "whether the simulated components record Events")
      ->capture_default_str();
  app.add_option("--node-eviction-rate", cluster_options.node_eviction_rate)->capture_default_str();
  app.add_option("--secondary-node-eviction-rate", cluster_options.secondary_node_eviction_rate)
      ->capture_default_str();
  app.add_option("--unhealthy-zone-threshold", cluster_options.unhealthy_zone_threshold)
      ->capture_default_str();
  app.add_option("--large-cluster-size-threshold", cluster_options.large_cluster_size_threshold)
      ->capture_default_str();
  app.add_option("--sim-io-threads", sim_options.io_threads, "kube-sim's io threads")
      ->capture_default_str();
  app.add_option("--operator", operator_binary, "the replica-guard binary")->capture_default_str();
  std::vector<std::string> operator_args;
  app.add_option("--operator-arg", operator_args,
                 "one more argument for the operator (repeatable), e.g. "
                 "--operator-arg=--taint-suspect-nodes");
  app.add_option("--operator-log", operator_log, "where the operator's output goes")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress as it comes, also into a file
  std::printf(
      "2 shared cores: absolute times are from a loaded machine; CPU-seconds and the "
      "ratios are the steadier figures\n");

  // --- kube-sim and its cluster ---
  auto started = Clock::now();
  rg::sim::Server server(sim_options);
  auto& store = server.store();
  const auto& table = rg::sim::ResourceTable::builtin();
  const auto& node_type = *table.find("", "v1", "nodes");
  const auto& pod_type = *table.find("", "v1", "pods");
  const auto& deployment_type = *table.find("apps", "v1", "deployments");
  const auto& lease_type = *table.find("coordination.k8s.io", "v1", "leases");
  asio::io_context cluster_io;
  rg::sim::Cluster cluster(store, cluster_options.scaled(time_scale), cluster_io.get_executor());
  const auto node_names = cluster.seed_nodes(nodes);
  // node-i is in zone (i - 1) % zones: round-robin, as the pods are, so each Deployment has pods
  // in every zone.
  std::unordered_map<std::string, std::size_t> zone_of;
  for (std::size_t i = 0; i < node_names.size(); ++i) {
    const std::string zone = fmt::format("sim-{}", char('a' + i % zones));
    zone_of[node_names[i]] = i % zones;
    store.update(node_type, "", node_names[i],
                 [&](const rg::sim::StoredObject&, json::object node) {
                   auto& labels = node["metadata"].as_object()["labels"].as_object();
                   labels["topology.kubernetes.io/region"] = "sim";
                   labels["topology.kubernetes.io/zone"] = zone;
                   node["metadata"].as_object().erase("resourceVersion");
                   return node;
                 });
  }
  cluster.seed_deployments({.namespace_ = "default",
                            .name_prefix = "app",
                            .deployments = deployments,
                            .pods_per_deployment = pods_per_deployment});
  const auto replicas = std::to_string(pods_per_deployment);
  const auto seeded = store.list(deployment_type, "default");  // held: items borrow from it
  for (const auto& d : seeded->items) {
    store.update(deployment_type, "default", d->name,
                 [&](const rg::sim::StoredObject&, json::object object) {
                   auto& metadata = object["metadata"].as_object();
                   auto& annotations = metadata["annotations"].as_object();
                   annotations["replica-guard.io/enabled"] = "true";
                   annotations["replica-guard.io/desired-replicas"] = replicas;
                   annotations["replica-guard.io/applied-replicas"] = replicas;
                   metadata.erase("resourceVersion");
                   return object;
                 });
  }
  const std::size_t pods = store.list(pod_type, "default")->items.size();
  std::printf("seeded %zu nodes in %zu zones, %zu guarded Deployments, %zu pods: %.1f s\n",
              node_names.size(), zones, deployments, pods, rg::bench::seconds_since(started));
  std::printf("the operator (spawned with this environment): %s\n",
              rg::bench::malloc_huge_pages().c_str());

  started = Clock::now();
  const double sim_cpu_at_start = sim_cpu_seconds();
  asio::cancellation_signal stop_cluster;
  asio::co_spawn(cluster_io, cluster.run(),
                 asio::bind_cancellation_slot(stop_cluster.slot(), asio::detached));
  std::thread cluster_thread([&] { cluster_io.run(); });
  // The operator's Lease signal needs the kubelets' Leases: wait for every node's first renewal.
  const auto leases = [&] { return store.list(lease_type, "kube-node-lease")->items.size(); };
  while (leases() < node_names.size()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::printf("cluster running, every node's Lease renewed: %.1f s (kube-sim CPU %.1f s)\n",
              rg::bench::seconds_since(started), sim_cpu_seconds() - sim_cpu_at_start);

  // --- the operator ---
  const auto kubeconfig = (std::filesystem::temp_directory_path() /
                           ("scale-bench-" + std::to_string(::getpid()) + ".kubeconfig"))
                              .string();
  server.write_kubeconfig(kubeconfig);
  // The operator's --node-lease-grace; its liveness window (renewals flowing) is half of it.
  const double lease_grace_s = 24 * time_scale;
  std::vector<std::string> args{operator_binary,
                                "--kubeconfig",
                                kubeconfig,
                                "--metrics-bind-address",
                                "0",
                                "--health-probe-bind-address",
                                "0",
                                "--workers",
                                std::to_string(workers),
                                "--kube-api-qps",
                                fmt::format("{:g}", qps),
                                "--kube-api-burst",
                                std::to_string(burst),
                                "--node-lease-grace",
                                seconds_flag(lease_grace_s),
                                "--node-grace-period",
                                seconds_flag(30 * time_scale),
                                "--scale-down-delay",
                                seconds_flag(60 * time_scale)};
  args.insert(args.end(), operator_args.begin(), operator_args.end());
  started = Clock::now();
  const pid_t operator_pid = spawn(args, operator_log);
  int exit_code = 0;
  try {
    // Synced and through its initial queue: a marker created now is queued behind every cached
    // Deployment, so its desired replicas being recorded says the whole list was reconciled.
    json::object marker = store.get(deployment_type, "default", "app-1")->parse();
    marker["metadata"] = {{"name", "marker-idle"},
                          {"namespace", "default"},
                          {"annotations", {{"replica-guard.io/enabled", "true"}}}};
    marker.erase("status");
    auto& spec = marker["spec"].as_object();
    spec["replicas"] = 0;
    spec["selector"] = {{"matchLabels", {{"app", "marker-idle"}}}};
    spec["template"].as_object()["metadata"] = {{"labels", {{"app", "marker-idle"}}}};
    store.create(deployment_type, std::move(marker));
    const auto sync_deadline = Clock::now() + std::chrono::minutes(10);
    if (!wait_for(operator_pid, sync_deadline, [&] {
          return store.get(deployment_type, "default", "marker-idle")
                     ->body.find("desired-replicas") != std::string::npos;
        }))
      throw std::runtime_error("the operator did not reconcile its initial list in 10 minutes");
    const double synced_s = rg::bench::seconds_since(started);
    const auto at_sync = sample(operator_pid);
    std::printf(
        "operator synced and idle (%zu pods, %zu Deployments, %zu nodes and Leases cached): %.1f "
        "s, CPU %.1f s; RSS %.0f MiB (%.2f KiB per pod), peak %.0f MiB -- target <= 300 MiB\n",
        pods, deployments, node_names.size(), synced_s, at_sync.cpu_seconds, at_sync.rss_mib,
        at_sync.rss_mib * 1024.0 / double(pods), at_sync.peak_rss_mib);

    // --- at rest ---
    const auto rest_before = sample(operator_pid);
    const double sim_rest_before = sim_cpu_seconds();
    const auto rest_start = Clock::now();
    wait_for(operator_pid,
             rest_start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(rest_seconds)),
             [] { return false; });
    const double rest_s = rg::bench::seconds_since(rest_start);
    const auto rest_after = sample(operator_pid);
    std::printf(
        "at rest for %.0f s (%zu Lease renewals per 10 s): operator CPU %.3f s per s, RSS %.0f "
        "MiB (%+.1f MiB); kube-sim CPU %.3f s per s\n",
        rest_s, node_names.size(), (rest_after.cpu_seconds - rest_before.cpu_seconds) / rest_s,
        rest_after.rss_mib, rest_after.rss_mib - rest_before.rss_mib,
        (sim_cpu_seconds() - sim_rest_before) / rest_s);

    // --- a zone failure ---
    std::set<std::string> dead;
    for (const auto& name : node_names)
      if (zone_of[name] == 0) dead.insert(name);
    std::unordered_set<std::string> affected;
    const auto pods_now = store.list(pod_type, "default");  // held: items borrow from it
    for (const auto& pod : pods_now->items) {
      if (!dead.contains(std::string(pod->field("spec.nodeName")))) continue;
      if (auto app_label = pod->labels.find("app"); app_label != pod->labels.end())
        affected.insert(app_label->second);
    }
    const auto earlier_writes = server.writes().since(0);
    const std::uint64_t writes_before = earlier_writes.empty() ? 0 : earlier_writes.back().sequence;
    const auto failure_before = sample(operator_pid);
    const double sim_failure_before = sim_cpu_seconds();
    const auto death = rg::sim::Instant::now();
    for (const auto& name : dead) cluster.stop_kubelet(name);
    const double death_wall = std::chrono::duration<double>(death.wall.time_since_epoch()).count();
    std::printf(
        "zone sim-a failed: %zu of %zu nodes' kubelets stopped in %.1f ms; %zu "
        "Deployments have pods there\n",
        dead.size(), node_names.size(),
        std::chrono::duration<double, std::milli>(Clock::now() - death.monotonic).count(),
        affected.size());

    // When each dead node's Lease ran out for the operator: its last renewal + the grace (the
    // operator sweeps every 1/24 of the grace): the earliest its scale PATCHes can go.
    std::vector<double> expiries;
    for (const auto& kubelet : cluster.kubelets())
      if (dead.contains(kubelet.node) && kubelet.last_renewal)
        expiries.push_back(
            std::chrono::duration<double>(kubelet.last_renewal->monotonic - death.monotonic)
                .count() +
            lease_grace_s);
    std::sort(expiries.begin(), expiries.end());

    std::unordered_map<std::string, double> scaled_at;  // Deployment -> seconds after the death
    // Deployment -> the spec.replicas of its scale PATCHes, in order.
    std::unordered_map<std::string, std::vector<std::int64_t>> scales;
    std::size_t scale_patches = 0;
    std::map<int, std::size_t> rejected_by_code;        // HTTP status -> how many scale PATCHes
    std::map<std::string, std::size_t> writes_by_kind;  // the operator's, death -> last scale
    std::uint64_t seen = writes_before;
    const double deadline_s =
        60 * time_scale + 120 + 3.0 * double(affected.size()) / std::max(qps, 1.0);
    // Whether Lease renewals kept flowing as the operator judges it (a majority of the Lease
    // holders renewed within its liveness window, half the grace): sampled once a second from
    // the simulated kubelets. Below the majority the operator (rightly) stops taking Lease
    // silence as evidence and waits for NotReady.
    const auto window = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(lease_grace_s / 2));
    const std::size_t majority = (node_names.size() - 1) / 2 + 1;
    std::size_t fewest_renewing = node_names.size();
    double fewest_at = 0, below_majority_s = 0;
    auto next_sample = Clock::now();
    const auto sample_renewals = [&] {
      const auto now = Clock::now();
      if (now < next_sample) return;
      next_sample = now + std::chrono::seconds(1);
      std::size_t renewing = 0;
      for (const auto& kubelet : cluster.kubelets())
        if (kubelet.last_renewal && now - kubelet.last_renewal->monotonic <= window) ++renewing;
      if (renewing < majority) below_majority_s += 1;
      if (renewing < fewest_renewing) {
        fewest_renewing = renewing;
        fewest_at = std::chrono::duration<double>(now - death.monotonic).count();
      }
    };
    const auto take_writes = [&] {
      for (const auto& write : server.writes().since(seen)) {
        seen = write.sequence;
        if (scaled_at.size() < affected.size())
          ++writes_by_kind[write.resource +
                           (write.subresource.empty() ? "" : "/" + write.subresource) + " " +
                           write.verb];
        if (write.resource != "deployments" || write.subresource != "scale") continue;
        ++scale_patches;
        if (write.code >= 300) {
          ++rejected_by_code[write.code];
          continue;
        }
        if (!affected.contains(write.name)) continue;
        scaled_at.try_emplace(write.name, write.time - death_wall);
        if (write.replicas) scales[write.name].push_back(*write.replicas);
      }
    };
    const bool complete = wait_for(operator_pid,
                                   death.monotonic + std::chrono::duration_cast<Clock::duration>(
                                                         std::chrono::duration<double>(deadline_s)),
                                   [&] {
                                     sample_renewals();
                                     take_writes();
                                     return scaled_at.size() == affected.size();
                                   });
    const auto failure_after = sample(operator_pid);
    const double sim_failure_cpu = sim_cpu_seconds() - sim_failure_before;
    std::vector<double> times;
    for (const auto& [name, t] : scaled_at) times.push_back(t);
    std::sort(times.begin(), times.end());
    std::printf(
        "zone failure -> each affected Deployment's scale PATCH written (--kube-api-qps %g "
        "--kube-api-burst %d, --node-lease-grace %s): %zu of %zu",
        qps, burst, seconds_flag(lease_grace_s).c_str(), times.size(), affected.size());
    if (!times.empty())
      std::printf(": first %.2f s, p50 %.2f s, p99 %.2f s, max %.2f s", times.front(),
                  quantile(times, 0.5), quantile(times, 0.99), times.back());
    std::size_t rejected = 0;
    std::string rejections;
    for (const auto& [code, count] : rejected_by_code) {
      rejected += count;
      rejections += fmt::format("{}{} x{}", rejections.empty() ? ": " : ", ", code, count);
    }
    std::printf(
        "\n  scale PATCHes sent: %zu (%zu rejected%s); CPU from the death to the last: operator "
        "%.1f s, kube-sim %.1f s; operator RSS %.0f MiB, peak %.0f MiB\n",
        scale_patches, rejected, rejections.c_str(),
        failure_after.cpu_seconds - failure_before.cpu_seconds, sim_failure_cpu,
        failure_after.rss_mib, failure_after.peak_rss_mib);
    if (!expiries.empty())
      std::printf(
          "  the dead nodes' Leases ran out (last renewal + grace) %.2f-%.2f s after the "
          "death\n",
          expiries.front(), expiries.back());
    std::size_t writes = 0;
    std::string kinds;
    for (const auto& [kind, count] : writes_by_kind) {
      writes += count;
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, kind);
    }
    if (!times.empty() && !expiries.empty())
      std::printf(
          "  the operator's writes from the death to the last scale PATCH: %zu (%s), "
          "%.0f per s from the first Lease run out to the last scale PATCH\n",
          writes, kinds.c_str(), double(writes) / std::max(times.back() - expiries.front(), 1e-3));
    if (complete && settle_seconds > 0) {
      const std::size_t patches_before = scale_patches;
      const auto settled =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(settle_seconds * time_scale));
      wait_for(operator_pid, settled, [&] {
        sample_renewals();
        take_writes();
        return false;
      });
      std::size_t scaled_down = 0, flapped = 0, most = 0;
      for (const auto& [name, replicas] : scales) {
        most = std::max(most, replicas.size());
        bool down = false;
        for (std::size_t i = 1; i < replicas.size(); ++i) {
          if (replicas[i] < replicas[i - 1]) down = true;
          if (down && replicas[i] > replicas[i - 1]) {
            ++flapped;
            break;
          }
        }
        if (down) ++scaled_down;
      }
      std::printf(
          "  settling, the zone still dead for %.0f s more: %zu more scale PATCHes; %zu "
          "Deployments scaled down before their nodes came back, %zu of them up again (flapped); "
          "at most %zu scale PATCHes for one Deployment\n",
          settle_seconds * time_scale, scale_patches - patches_before, scaled_down, flapped, most);
    }
    std::printf(
        "  Lease renewals flowing (nodes renewed within the operator's %g s window, sampled "
        "each second): fewest %zu of %zu, %.0f s after the death (a majority is %zu; below it "
        "for ~%.0f s)\n",
        lease_grace_s / 2, fewest_renewing, node_names.size(), fewest_at, majority,
        below_majority_s);
    if (!complete) {
      std::printf("FAILED: %zu affected Deployments got no scale PATCH within %.0f s (log: %s)\n",
                  affected.size() - times.size(), deadline_s, operator_log.c_str());
      exit_code = 1;
    }
  } catch (const std::exception& error) {
    std::printf("FAILED: %s (operator log: %s)\n", error.what(), operator_log.c_str());
    exit_code = 1;
  }
  ::kill(operator_pid, SIGTERM);
  int status = 0;
  ::waitpid(operator_pid, &status, 0);
  asio::post(cluster_io, [&] { stop_cluster.emit(asio::cancellation_type::terminal); });
  cluster_thread.join();
  std::filesystem::remove(kubeconfig);
  return exit_code;
}
