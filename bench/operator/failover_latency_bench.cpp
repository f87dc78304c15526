// Failover latency: how long from a node's failure reaching the API server to replica-guard's
// scale PATCH for each affected Deployment, with many opted-in Deployments and pods cached, and
// the operator's steady memory.
//
// kube-sim runs in-process with realistic seeded state (no simulated controllers, so nothing else
// writes): N Ready nodes, D opted-in Deployments of P Ready pods each. The operator (the Manager
// as main() runs it, watching their namespace) runs on its own thread against kube-sim over
// loopback HTTP. Once it has synced and reconciled its initial list (two marker Deployments say
// so), for each of F failures the bench marks a node Ready=Unknown (since long enough ago to be
// past the grace period) straight in the store, then sleeps until the operator's transport has
// written a scale PATCH for every affected Deployment: the bench's thread runs nothing during the
// burst (whatever it ran would be taken from the operator and kube-sim on the machine's two
// cores; reading each scaled Deployment from a store watch cost ~3 ms of CPU per burst of 100).
// Afterwards it reads, from kube-sim's record of the writes it carried out, when each
// Deployment's spec.replicas went up: the latency includes the watch event to the operator, the
// Node -> Pods -> Deployments mapping, the queue, the reconcile and the scale PATCH (the
// operator's first write; its record in applied-replicas follows in the reconcile the echo
// brings). It also notes the first scale of each failure (getting to the first reconcile), and
// the CPU time the operator's thread, kube-sim's threads and its own thread (writing the failure)
// ran from the failure to the last scale PATCH written (robust where wall times are not: on a
// busy machine). After each failure it waits until the operator has recorded every scale and
// written its Events about it (in the background, after the scales), so that the operator is
// idle when the next turn begins.
//
// The measure is taken inside that one, on the operator's wire (a TransportTracer on its
// client, see WireTrace): from its Node watch reading the failed node's event to each
// Deployment's scale PATCH written to the socket. The store-to-store figure adds kube-sim's watch
// fan-out before it and the last PATCH's handling after it.
//
// The floor that kube-sim and the client put under the operator's figures: the same scale
// PATCHes for the same bursts without the operator (see Floor), sent to copies of the Deployments
// in a namespace the operator does not watch, in a turn of their own just before each failure.
// Taking turns in one run, the two sides meet the same machine (a shared VM drifts by several
// milliseconds of p99 within a run) and the same kube-sim heap (whose allocations grow dearer as
// it churns); each side's turn follows the other's. With --pin-cpus the operator's thread and
// the floor's client share one CPU and kube-sim's threads have the other, as a real API server
// never shares the operator's cores: left to the kernel, the operator's slowest bursts took 2-3x
// their CPU in wall time, its busy threads runnable but waiting for the core kube-sim was on.
//
//   build/bench/operator/failover_latency_bench [--deployments 1000] [--pods-per-deployment 10]
//                                               [--nodes 100] [--failures 5] [--workers 16]
//                                               [--sim-io-threads 1]
//                                               [--kube-api-qps 0] [--kube-api-burst 30]
//                                               [--pin-cpus]
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>

#include "bench/process_stats.hpp"
#include "client/config/resolve.hpp"
#include "client/model/codec.hpp"
#include "client/model/deployment.hpp"
#include "client/model/scale.hpp"
#include "client/model/time.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/transport_tracer.hpp"
#include "operator/api_adapters.hpp"
#include "operator/logging.hpp"
#include "operator/manager.hpp"
#include "operator/reconciler.hpp"
#include "sim/cluster/seed.hpp"
#include "sim/server.hpp"

namespace {
namespace asio = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// CPU time each thread of this process has run so far, in ns (/proc/self/task/TID/schedstat).
std::map<long, std::uint64_t> thread_cpu_ns() {
  std::map<long, std::uint64_t> out;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return out;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream schedstat(std::string("/proc/self/task/") + entry->d_name + "/schedstat");
    std::uint64_t ns = 0;
    if (schedstat >> ns) out[std::stol(entry->d_name)] = ns;
  }
  ::closedir(tasks);
  return out;
}

// CPU ms between two thread_cpu_ns() snapshots: of `thread`, and of all other threads but `also`.
std::pair<double, double> cpu_ms_split(const std::map<long, std::uint64_t>& before,
                                       const std::map<long, std::uint64_t>& after, long thread,
                                       long also) {
  double mine = 0, others = 0;
  for (const auto& [tid, ns] : after) {
    const auto was = before.find(tid);
    const double ms = double(ns - (was == before.end() ? 0 : was->second)) / 1e6;
    if (tid == thread) {
      mine += ms;
    } else if (tid != also) {
      others += ms;
    }
  }
  return {mine, others};
}

// --pin-cpus: this bench's thread (the floor's client) on the second CPU the process may use,
// every other thread so far (kube-sim's) on the first, as a real API server never shares the
// operator's cores. A thread started later inherits its starter's CPUs: the operator's thread,
// started by this one, runs on the second. Returns false when fewer than two CPUs are allowed.
bool pin_threads(long bench_tid) {
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < 2)
    return false;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  for (const auto& [tid, ns] : thread_cpu_ns()) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(tid == bench_tid ? cpus[1] : cpus[0], &one);
    if (::sched_setaffinity(static_cast<pid_t>(tid), sizeof(one), &one) != 0)
      throw std::system_error(errno, std::generic_category(), "--pin-cpus: sched_setaffinity");
  }
  return true;
}

// What the operator's transport saw after a failure (hooks on the operator's thread): when its
// Node watch read the failed node's event, and when each Deployment's scale PATCH was written.
class WireTrace final : public rg::client::TransportTracer {
 public:
  /// Starts watching for `node`'s event; forgets the last failure's. Calls `all_written` (on the
  /// operator's thread) once a scale PATCH of each of `expected` has been written.
  void arm(const std::string& node, std::set<std::string, std::less<>> expected,
           std::function<void()> all_written) {
    std::lock_guard lock(mutex_);
    node_needle_ = "\"name\":\"" + node + "\"";
    event_read_.reset();
    scale_written_.clear();
    expected_ = std::move(expected);
    all_written_ = std::move(all_written);
  }

  /// When the node's event was read, and each Deployment's first scale PATCH written since (a
  /// later one is a retry, e.g. after a conflict).
  std::pair<std::optional<Clock::time_point>, std::map<std::string, Clock::time_point>> take() {
    std::lock_guard lock(mutex_);
    node_needle_.clear();
    all_written_ = nullptr;
    return {event_read_, std::exchange(scale_written_, {})};
  }

  /// Scale PATCHes written since the start, retries included.
  std::size_t scale_patches() {
    std::lock_guard lock(mutex_);
    return scale_patches_;
  }

  void on_request_written(std::string_view method, std::string_view target) override {
    // PATCH .../deployments/NAME/scale?...
    const auto end = target.find("/scale");
    if (method != "PATCH" || end == std::string_view::npos) return;
    const auto start = target.rfind('/', end - 1) + 1;
    const auto now = Clock::now();
    const std::string_view name = target.substr(start, end - start);
    std::lock_guard lock(mutex_);
    ++scale_patches_;
    if (node_needle_.empty() || !scale_written_.try_emplace(std::string(name), now).second) return;
    const auto expected = expected_.find(name);
    if (expected == expected_.end()) return;
    expected_.erase(expected);
    if (expected_.empty() && all_written_) std::exchange(all_written_, nullptr)();
  }

  void on_body_read(std::string_view target, std::string_view piece) override {
    if (!target.starts_with("/api/v1/nodes?") || target.find("watch=") == std::string_view::npos)
      return;
    const auto now = Clock::now();
    std::lock_guard lock(mutex_);
    if (!node_needle_.empty() && !event_read_ && piece.find(node_needle_) != std::string_view::npos)
      event_read_ = now;
  }

 private:
  std::mutex mutex_;
  std::string node_needle_;  ///< "name":"NODE" while armed, else empty
  std::optional<Clock::time_point> event_read_;
  std::map<std::string, Clock::time_point> scale_written_;
  std::set<std::string, std::less<>> expected_;  ///< not yet written
  std::function<void()> all_written_;
  std::size_t scale_patches_ = 0;
};

// A Deployment's spec.replicas, read through the Scale projection (metadata and spec.replicas;
// the pod template and status are skipped unread): the floor's writers read it before each
// PATCH, as the operator's reconcile reads its cache, and a whole Deployment's decode would add
// to the floor what the operator does not spend.
std::int64_t spec_replicas(const rg::sim::ObjectPtr& object) {
  return rg::client::decode<rg::client::Scale>(object->body).spec.replicas;
}

// Marks the node's Ready condition Unknown since a minute ago, as the node lifecycle
// controller does once heartbeats stop (backdated, so the operator's grace has passed).
json::object fail_node(const rg::sim::StoredObject&, json::object node) {
  const std::string since =
      rg::client::format_time(std::chrono::system_clock::now() - std::chrono::minutes(1));
  for (auto& condition : node["status"].as_object()["conditions"].as_array()) {
    auto& c = condition.as_object();
    if (c["type"] == "Ready") {
      c["status"] = "Unknown";
      c["reason"] = "NodeStatusUnknown";
      c["lastTransitionTime"] = since;
    }
  }
  node["metadata"].as_object().erase("resourceVersion");
  return node;
}

// The writes alone, without the operator: for each burst of Deployments (those a failure
// scaled), `workers` writers each take the next Deployment and send its scale PATCH, as the
// operator's reconciles do, through the operator's own RestDeploymentWriter. No watch, cache,
// reconcile, record or Event: what kube-sim and the client alone take for a burst, a floor under
// the operator's latency. It writes copies of the guarded Deployments in a namespace of their
// own, which the operator does not watch, so its bursts can take turns with the operator's in
// one run (the operator idle meanwhile) and meet the same machine and the same kube-sim heap.
class Floor {
 public:
  static constexpr const char* kNamespace = "floor";

  Floor(rg::sim::Server& server, int workers)
      : server_(server),
        deployment_type_(*rg::sim::ResourceTable::builtin().find("apps", "v1", "deployments")),
        client_(server.rest_config()),
        writer_(client_),
        workers_(workers) {}

  /// Sends the scale PATCHes of `names` and returns once every one is answered. `idle` is the
  /// operator's thread: its CPU meanwhile is counted apart (it should have nothing to do).
  void burst(const std::vector<std::string>& names, long idle) {
    std::size_t next = 0;
    const auto cpu_before = thread_cpu_ns();
    const auto t0 = Clock::now();
    auto write_next = [&]() -> asio::awaitable<void> {
      while (next < names.size()) {
        const std::string& name = names[next++];
        const auto object = server_.store().get(deployment_type_, kNamespace, name);
        const auto replicas = static_cast<std::int32_t>(spec_replicas(object));
        co_await writer_.scale(kNamespace, name, std::to_string(object->resource_version),
                               replicas + 1);
        latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    };
    std::exception_ptr failure;
    for (int w = 0; w < workers_; ++w) {
      asio::co_spawn(io_, write_next, [&](const std::exception_ptr& e) {
        if (e) failure = e;
      });
    }
    io_.run();
    io_.restart();
    if (failure) std::rethrow_exception(failure);
    const long self = ::syscall(SYS_gettid);
    const auto cpu_after = thread_cpu_ns();
    client_cpu_ms = cpu_ms_split(cpu_before, cpu_after, self, self).first;
    std::tie(idle_cpu_ms, sim_cpu_ms) = cpu_ms_split(cpu_before, cpu_after, idle, self);
    total_client_cpu_ms += client_cpu_ms;
    total_sim_cpu_ms += sim_cpu_ms;
    total_idle_cpu_ms += idle_cpu_ms;
    ++bursts;
  }

  /// Each Deployment: its burst's start -> its scale's answer, in the order answered (so the
  /// last is the latest burst's last answer until they are sorted).
  std::vector<double> latencies_ms;
  /// The last burst's CPU: the writers' thread, kube-sim's threads, the idle operator's thread.
  double client_cpu_ms = 0, sim_cpu_ms = 0, idle_cpu_ms = 0;
  double total_client_cpu_ms = 0, total_sim_cpu_ms = 0, total_idle_cpu_ms = 0;
  std::size_t bursts = 0;

 private:
  rg::sim::Server& server_;
  const rg::sim::ResourceType& deployment_type_;
  asio::io_context io_;
  rg::client::RestClient client_;
  rg::op::RestDeploymentWriter writer_;
  int workers_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"failover_latency_bench: node failure to scale PATCH, through replica-guard"};
  std::size_t deployments = 1000, pods_per_deployment = 10, nodes = 100, failures = 5;
  rg::op::Options options;
  rg::sim::ServerOptions sim_options;
  app.add_option("--deployments", deployments)->capture_default_str();
  app.add_option("--pods-per-deployment", pods_per_deployment)->capture_default_str();
  app.add_option("--nodes", nodes)->capture_default_str();
  app.add_option("--failures", failures)->capture_default_str();
  app.add_option("--workers", options.workers, "the operator's --workers")->capture_default_str();
  app.add_option("--kube-api-qps", options.kube_api_qps,
                 "the operator's client-side rate limit (0: none, its default)")
      ->capture_default_str();
  app.add_option("--kube-api-burst", options.kube_api_burst, "the operator's --kube-api-burst")
      ->capture_default_str();
  app.add_option("--sim-io-threads", sim_options.io_threads, "kube-sim's io threads")
      ->capture_default_str();
  bool pin_cpus = false;
  app.add_flag("--pin-cpus", pin_cpus,
               "the operator and the floor's client on one CPU, kube-sim on another (off: the "
               "kernel places them)");
  CLI11_PARSE(app, argc, argv);

  // The failures strand pods, and the first Deployment is the markers' model.
  if (deployments == 0 || pods_per_deployment == 0) {
    std::fprintf(stderr,
                 "--deployments %zu --pods-per-deployment %zu: a node failure strands pods only "
                 "where there are some: use at least one of each\n",
                 deployments, pods_per_deployment);
    return 2;
  }
  // The failures accumulate (a failed node stays failed): past the operator's partition guard
  // it would hold every surge back and the bench would wait for scales that never come.
  if (failures == 0 || nodes == 0 ||
      rg::op::too_many_unhealthy(failures, nodes, options.max_unhealthy_node_fraction)) {
    std::fprintf(stderr,
                 "--failures %zu of --nodes %zu: the failed nodes stay failed, so at most %.0f%% "
                 "of the nodes may fail (the operator's --max-unhealthy-node-fraction %.2f) and "
                 "at least one must: use more nodes or fewer failures\n",
                 failures, nodes, options.max_unhealthy_node_fraction * 100,
                 options.max_unhealthy_node_fraction);
    return 2;
  }
  rg::op::setup_logging(rg::op::LogFormat::kText, 0);  // the operator's own line format
  spdlog::set_level(spdlog::level::warn);

  rg::sim::Server server(sim_options);
  const long bench_tid = ::syscall(SYS_gettid);
  // kube-sim's threads run now; the operator's, started later by this one, will inherit its CPU.
  if (pin_cpus && !pin_threads(bench_tid)) {
    std::fprintf(stderr, "--pin-cpus needs two CPUs this process may run on: run without it\n");
    return 2;
  }
  auto& store = server.store();
  const auto& table = rg::sim::ResourceTable::builtin();
  const auto& deployment_type = *table.find("apps", "v1", "deployments");
  const auto& pod_type = *table.find("", "v1", "pods");
  const auto& node_type = *table.find("", "v1", "nodes");
  const auto& event_type = *table.find("", "v1", "events");
  const auto node_names = rg::sim::seed_nodes(store, nodes);
  rg::sim::seed_deployments(store, {.namespace_ = "default",
                                    .name_prefix = "app",
                                    .deployments = deployments,
                                    .pods_per_deployment = pods_per_deployment});
  const auto replicas = std::to_string(pods_per_deployment);
  const auto seeded = store.list(deployment_type, "default");
  for (const auto& d : seeded->items) {
    store.update(deployment_type, "default", d->name,
                 [&](const rg::sim::StoredObject&, json::object object) {
                   auto& metadata = object["metadata"].as_object();
                   metadata["annotations"] = {{"replica-guard.io/enabled", "true"},
                                              {"replica-guard.io/desired-replicas", replicas},
                                              {"replica-guard.io/applied-replicas", replicas},
                                              {"replica-guard.io/max-surge", "100%"}};
                   metadata.erase("resourceVersion");
                   return object;
                 });
  }
  // The floor's copies of the guarded Deployments, in a namespace the operator does not watch.
  store.create(*table.find("", "v1", "namespaces"),
               json::object{{"metadata", {{"name", Floor::kNamespace}}}});
  const auto guarded = store.list(deployment_type, "default");
  for (const auto& d : guarded->items) {
    json::object copy = d->parse();
    auto& metadata = copy["metadata"].as_object();
    metadata["namespace"] = Floor::kNamespace;
    for (const char* field : {"uid", "resourceVersion", "creationTimestamp"}) metadata.erase(field);
    store.create(deployment_type, std::move(copy));
  }
  // Which Deployments have pods on which node.
  std::map<std::string, std::set<std::string>> deployments_on;
  const auto pods = store.list(pod_type, "default");
  for (const auto& pod : pods->items) {
    const auto parsed = pod->parse();
    const auto& app = parsed.at("metadata").at("labels").at("app").as_string();
    deployments_on[std::string(parsed.at("spec").at("nodeName").as_string())].insert(
        std::string(app));
  }
  std::printf("kube-sim: %zu nodes, %zu opted-in Deployments, %zu pods\n", node_names.size(),
              deployments, pods->items.size());
  // The nodes that fail, in order, and the Deployments each failure scales.
  std::vector<std::string> failing;
  std::vector<std::vector<std::string>> bursts;
  for (std::size_t i = 0; i < failures && i < node_names.size(); ++i) {
    failing.push_back(node_names[i * node_names.size() / failures]);
    const auto& on = deployments_on[failing.back()];
    bursts.emplace_back(on.begin(), on.end());
  }

  // The operator, on its own thread.
  const auto kubeconfig = (std::filesystem::temp_directory_path() /
                           ("failover-bench-" + std::to_string(::getpid()) + ".kubeconfig"))
                              .string();
  server.write_kubeconfig(kubeconfig);
  options.kubeconfig = kubeconfig;
  options.namespaces = {"default"};  // not the floor's
  options.metrics_bind_address = "0";
  options.health_probe_bind_address = "0";
  // The operator times a NotReady node's grace from when it sees the transition (its own clock),
  // not from the backdated lastTransitionTime: no grace, so the failure is acted on at once.
  options.node_grace_period = "0s";
  rg::client::ResolveOptions resolve;
  resolve.kubeconfig = kubeconfig;
  const std::size_t rss_before = rg::bench::resident_bytes();
  asio::io_context operator_io;
  const auto trace = std::make_shared<WireTrace>();
  rg::op::Manager manager(options, rg::client::resolve_config(resolve), trace);
  asio::cancellation_signal stop;
  asio::co_spawn(operator_io, manager.run(),
                 asio::bind_cancellation_slot(stop.slot(), asio::detached));
  std::atomic<long> operator_tid{0};
  std::thread operator_thread([&] {
    operator_tid = ::syscall(SYS_gettid);
    operator_io.run();
  });

  asio::io_context io;
  std::vector<double> latencies_ms;    // failure -> each Deployment's scale
  std::vector<double> first_scale_ms;  // failure -> the first scale-up of the burst
  std::vector<double> wire_ms;    // the operator read the node's event -> each scale PATCH written
  std::vector<double> arrive_ms;  // failure in the store -> the operator read its event
  // During the bursts (failure -> last scale PATCH written); the observer is this bench's thread.
  double operator_cpu_ms = 0, sim_cpu_ms = 0, observer_cpu_ms = 0;
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  Floor floor(server, options.workers);
  auto measure = [&]() -> asio::awaitable<void> {
    auto start = store.watch(deployment_type, "default", store.resource_version());
    auto& watcher = start.watcher;
    auto event_watcher = store.watch(event_type, "default", store.resource_version()).watcher;
    // Synced and through its initial queue. The operator queues every cached Deployment when it
    // starts writing, so a first marker Deployment's desired replicas being recorded says only
    // that it runs (the marker may have been in that initial list); a second marker, created
    // after that, is queued behind the whole initial list, so its recording says the list has
    // been reconciled and the operator is idle.
    const json::object model = store.get(deployment_type, "default", "app-1")->parse();
    for (const char* name : {"marker-running", "marker-idle"}) {
      json::object marker = model;
      marker["metadata"] = {{"name", name},
                            {"namespace", "default"},
                            {"annotations", {{"replica-guard.io/enabled", "true"}}}};
      marker.erase("status");
      auto& spec = marker["spec"].as_object();
      spec["replicas"] = 0;
      spec["selector"] = {{"matchLabels", {{"app", name}}}};
      spec["template"].as_object()["metadata"] = {{"labels", {{"app", name}}}};
      store.create(deployment_type, std::move(marker));
      for (bool recorded = false; !recorded;) {
        for (const auto& event : co_await watcher->next()) {
          recorded = recorded || (event.object->name == name &&
                                  event.object->body.find("desired-replicas") != std::string::npos);
        }
      }
    }
    const double rss_kib =
        (static_cast<double>(rg::bench::resident_bytes()) - static_cast<double>(rss_before)) /
        1024.0;
    std::printf(
        "operator synced; steady RSS %.1f MiB more than before it started (%.2f KiB per "
        "cached pod)\n",
        rss_kib / 1024.0, rss_kib / double(deployments * pods_per_deployment));
    store.unwatch(deployment_type, watcher);
    std::uint64_t seen = 0;  // kube-sim's write record, read up to here
    for (const auto& write : server.writes().since(0)) seen = write.sequence;
    for (std::size_t i = 0; i < failing.size(); ++i) {
      const std::string& node = failing[i];
      // Each affected Deployment's spec.replicas before the failure: its scale-up is above it.
      std::map<std::string, std::int64_t, std::less<>> before;
      for (const auto& name : bursts[i])
        before.emplace(name, spec_replicas(store.get(deployment_type, "default", name)));
      if (before.empty()) {  // nothing to scale: the node fails all the same
        store.update(node_type, "", node, fail_node);
        std::printf("failure %zu (%s): no Deployment has pods there\n", i + 1, node.c_str());
        continue;
      }
      // The floor's turn, while the operator is idle (its last burst settled): the same
      // PATCHes to the copies.
      floor.burst(bursts[i], operator_tid);
      // The bench's thread sleeps through the burst (what it ran would be taken from the
      // operator and kube-sim on the machine's two cores): the operator's transport wakes it
      // once a scale PATCH of every affected Deployment has been written.
      asio::steady_timer wake(io, asio::steady_timer::time_point::max());
      bool all_written = false;
      trace->arm(node, {bursts[i].begin(), bursts[i].end()}, [&] {
        asio::post(io, [&] {
          all_written = true;
          wake.cancel();
        });
      });
      const auto cpu_before = thread_cpu_ns();
      const auto t0 = Clock::now();
      const double t0_unix =  // as kube-sim stamps its writes: Unix seconds
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count();
      store.update(node_type, "", node, fail_node);
      while (!all_written) {
        boost::system::error_code cancelled;
        co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
      }
      const auto written = Clock::now();
      const auto cpu_after = thread_cpu_ns();
      const auto [operator_ms, sim_ms] =
          cpu_ms_split(cpu_before, cpu_after, operator_tid, bench_tid);
      const double observer_ms = cpu_ms_split(cpu_before, cpu_after, bench_tid, bench_tid).first;
      operator_cpu_ms += operator_ms;
      sim_cpu_ms += sim_ms;
      observer_cpu_ms += observer_ms;
      // Settle, so that the floor's next turn finds the operator idle: each Deployment's new
      // count recorded (by the reconcile its scale's echo brings), read from the store (a watch
      // opened only now wakes the bench when it may have changed)...
      auto records_watch = store.watch(deployment_type, "default", store.resource_version());
      auto recorded = [&](const auto& entry) {
        const auto object = store.get(deployment_type, "default", entry.first)->parse();
        const auto replicas = object.at("spec").at("replicas").as_int64();
        const auto* applied = object.at("metadata")
                                  .at("annotations")
                                  .as_object()
                                  .if_contains("replica-guard.io/applied-replicas");
        return replicas > entry.second && applied != nullptr &&
               applied->as_string() == std::to_string(replicas);
      };
      auto unrecorded = before;
      std::erase_if(unrecorded, recorded);
      while (!unrecorded.empty()) {
        if ((co_await records_watch.watcher->next()).empty())
          throw std::runtime_error("the store closed the watch");
        std::erase_if(unrecorded, recorded);
      }
      store.unwatch(deployment_type, records_watch.watcher);
      // ...and one ScaledUpForStrandedPods Event written (created or patched) per Deployment,
      // each recorded once its scale was answered.
      for (std::size_t events_written = 0; events_written < before.size();) {
        const auto events = co_await event_watcher->next();
        if (events.empty()) throw std::runtime_error("the store closed the watch");
        for (const auto& event : events) {
          if (event.object->body.find("ScaledUpForStrandedPods") != std::string::npos)
            ++events_written;
        }
      }
      // The store's side, from kube-sim's record of the writes it carried out: when each
      // Deployment's first scale above its replicas before the failure was done.
      std::map<std::string, double, std::less<>> scaled_ms;
      for (const auto& write : server.writes().since(seen)) {
        seen = write.sequence;
        if (write.resource != "deployments" || write.subresource != "scale" ||
            write.namespace_ != "default" || write.code >= 300)
          continue;
        const auto was = before.find(write.name);
        if (was != before.end() && write.replicas && *write.replicas > was->second)
          scaled_ms.try_emplace(write.name, (write.time - t0_unix) * 1000);
      }
      const auto [event_read, scale_written] = trace->take();
      if (!event_read) throw std::runtime_error("the operator's Node watch never read " + node);
      arrive_ms.push_back(ms(*event_read - t0));
      double first_ms = std::numeric_limits<double>::infinity(), last_ms = 0;
      for (const auto& name : bursts[i]) {
        const auto sent = scale_written.find(name);
        const auto scaled = scaled_ms.find(name);
        if (sent == scale_written.end() || scaled == scaled_ms.end())
          throw std::runtime_error("no scale-up of " + name + " was written");
        wire_ms.push_back(ms(sent->second - *event_read));
        latencies_ms.push_back(scaled->second);
        first_ms = std::min(first_ms, scaled->second);
        last_ms = std::max(last_ms, scaled->second);
      }
      first_scale_ms.push_back(first_ms);
      std::printf(
          "failure %zu (%s): %zu Deployments scaled up, the first after %.1f ms, the last "
          "scale after %.1f ms (CPU to the last scale PATCH written: operator %.1f ms, kube-sim "
          "%.1f ms, this bench %.1f ms), settled %.1f ms later; the floor's turn before it: the "
          "last answer after %.1f ms (CPU: client %.1f ms, kube-sim %.1f ms)\n",
          i + 1, node.c_str(), before.size(), first_ms, last_ms, operator_ms, sim_ms, observer_ms,
          ms(Clock::now() - written), floor.latencies_ms.back(), floor.client_cpu_ms,
          floor.sim_cpu_ms);
    }
    store.unwatch(event_type, event_watcher);
  };
  std::exception_ptr failure;
  asio::co_spawn(io, measure, [&](const std::exception_ptr& e) { failure = e; });
  io.run();

  asio::post(operator_io, [&] { stop.emit(asio::cancellation_type::terminal); });
  operator_thread.join();
  std::filesystem::remove(kubeconfig);
  if (failure) std::rethrow_exception(failure);
  if (wire_ms.empty()) {
    std::fprintf(stderr,
                 "no failed node held a pod of a guarded Deployment, so nothing was measured: use "
                 "more --pods-per-deployment or fewer --nodes\n");
    return 2;
  }
  for (auto* values : {&latencies_ms, &first_scale_ms, &floor.latencies_ms, &wire_ms, &arrive_ms})
    std::sort(values->begin(), values->end());
  const auto at = [](const std::vector<double>& values, double q) {
    return values[std::min(values.size() - 1, static_cast<std::size_t>(q * double(values.size())))];
  };
  const double floor_p99 = at(floor.latencies_ms, 0.99);
  std::printf(
      "node NotReady event read by the operator -> scale PATCH written, over %zu Deployments (%d "
      "workers): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      wire_ms.size(), options.workers, at(wire_ms, 0.50), at(wire_ms, 0.99), wire_ms.back());
  std::printf(
      "node failure in the store -> scale-up in the store: p50 %.2f ms, p99 %.2f ms, max %.2f "
      "ms\n",
      at(latencies_ms, 0.50), at(latencies_ms, 0.99), latencies_ms.back());
  std::printf(
      "  node failure in the store -> its event read by the operator: p50 %.2f ms, max %.2f ms\n",
      at(arrive_ms, 0.50), arrive_ms.back());
  std::printf("  scale PATCHes the operator wrote: %zu, for %zu scale-ups\n",
              trace->scale_patches(), wire_ms.size());
  std::printf("  node failure -> a burst's first scale-up in the store: p50 %.2f ms, max %.2f ms\n",
              at(first_scale_ms, 0.50), first_scale_ms.back());
  const auto measured = static_cast<double>(first_scale_ms.size());  // failures with a burst
  std::printf(
      "  CPU from each failure to its last scale PATCH written, per failure: operator %.1f ms, "
      "kube-sim %.1f ms, this bench (writing the failure) %.1f ms\n",
      operator_cpu_ms / measured, sim_cpu_ms / measured, observer_cpu_ms / measured);
  std::printf(
      "the same scale PATCHes without the operator (%d writers, no watch/reconcile/record/Events), "
      "one turn before each failure: p50 %.2f ms, p99 %.2f ms, max %.2f ms; CPU per burst: client "
      "%.1f ms, kube-sim %.1f ms (the idle operator meanwhile %.2f ms)\n",
      options.workers, at(floor.latencies_ms, 0.50), floor_p99, floor.latencies_ms.back(),
      floor.total_client_cpu_ms / double(floor.bursts),
      floor.total_sim_cpu_ms / double(floor.bursts),
      floor.total_idle_cpu_ms / double(floor.bursts));
  std::printf("operator p99 minus the floor's p99: %.2f ms (target <= 3 ms in every run)\n",
              at(wire_ms, 0.99) - floor_p99);
  return 0;
}
