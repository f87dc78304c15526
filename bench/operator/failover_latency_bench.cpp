// Failover latency: how long from a node's failure reaching the API server to replica-guard's
// scale PATCH for each affected Deployment, with many opted-in Deployments and pods cached, and
// the operator's steady memory.
//
// kube-sim runs in-process with realistic seeded state (no simulated controllers, so nothing else
// writes): N Ready nodes, D opted-in Deployments of P Ready pods each. The operator (the Manager
// as main() runs it) runs on its own thread against kube-sim over loopback HTTP. For each of F
// failures, the bench marks a node Ready=Unknown (since long enough ago to be past the grace
// period) straight in the store and timestamps, from a store watch, every affected Deployment's
// spec.replicas going up: the latency includes the watch event to the operator, the Node ->
// Pods -> Deployments mapping, the queue, the reconcile and the PATCH round trips. It also notes
// each Deployment's first write after the failure (the operator's applied-replicas annotation,
// written before the scale), which splits the latency into getting to the first reconcile and
// the writes of each reconcile. After each failure it waits for the operator's Events about it
// (written in the background, after the scales) so that failures do not overlap.
//
//   build/bench/operator/failover_latency_bench [--deployments 1000] [--pods-per-deployment 10]
//                                               [--nodes 100] [--failures 5] [--workers 4]
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "client/config/resolve.hpp"
#include "client/model/time.hpp"
#include "operator/manager.hpp"
#include "sim/cluster/seed.hpp"
#include "sim/server.hpp"

namespace {
namespace asio = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

std::int64_t spec_replicas(const rg::sim::ObjectPtr& object) {
  const auto parsed = object->parse();
  return parsed.at("spec").as_object().at("replicas").to_number<std::int64_t>();
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"failover_latency_bench: node failure to scale PATCH, through replica-guard"};
  std::size_t deployments = 1000, pods_per_deployment = 10, nodes = 100, failures = 5;
  rg::op::Options options;
  app.add_option("--deployments", deployments)->capture_default_str();
  app.add_option("--pods-per-deployment", pods_per_deployment)->capture_default_str();
  app.add_option("--nodes", nodes)->capture_default_str();
  app.add_option("--failures", failures)->capture_default_str();
  app.add_option("--workers", options.workers, "the operator's --workers")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  rg::sim::Server server;
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

  // The operator, on its own thread.
  const auto kubeconfig = (std::filesystem::temp_directory_path() /
                           ("failover-bench-" + std::to_string(::getpid()) + ".kubeconfig"))
                              .string();
  server.write_kubeconfig(kubeconfig);
  options.kubeconfig = kubeconfig;
  options.metrics_bind_address = "0";
  options.health_probe_bind_address = "0";
  rg::client::ResolveOptions resolve;
  resolve.kubeconfig = kubeconfig;
  const long rss_before = rss_kib();
  asio::io_context operator_io;
  rg::op::Manager manager(options, rg::client::resolve_config(resolve));
  asio::cancellation_signal stop;
  asio::co_spawn(operator_io, manager.run(),
                 asio::bind_cancellation_slot(stop.slot(), asio::detached));
  std::thread operator_thread([&] { operator_io.run(); });

  asio::io_context io;
  std::vector<double> latencies_ms;    // failure -> each Deployment's scale
  std::vector<double> first_write_ms;  // failure -> the first write of any affected Deployment
  std::vector<double> writes_ms;       // each Deployment's first write -> its scale
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  auto measure = [&]() -> asio::awaitable<void> {
    auto start =
        store.watch(deployment_type, "default", store.resource_version(), io.get_executor());
    auto& watcher = start.watcher;
    auto event_watcher =
        store.watch(event_type, "default", store.resource_version(), io.get_executor()).watcher;
    // Synced and through its initial queue: a Deployment created now gets its desired replicas
    // recorded after the seeded ones were reconciled.
    json::object marker = store.get(deployment_type, "default", "app-1")->parse();
    auto& meta = marker["metadata"].as_object();
    meta = {{"name", "marker"},
            {"namespace", "default"},
            {"annotations", {{"replica-guard.io/enabled", "true"}}}};
    marker.erase("status");
    auto& spec = marker["spec"].as_object();
    spec["replicas"] = 0;
    spec["selector"] = {{"matchLabels", {{"app", "marker"}}}};
    spec["template"].as_object()["metadata"] = {{"labels", {{"app", "marker"}}}};
    store.create(deployment_type, std::move(marker));
    for (bool recorded = false; !recorded;) {
      for (const auto& event : co_await watcher->next()) {
        recorded = recorded || (event.object->name == "marker" &&
                                event.object->body.find("desired-replicas") != std::string::npos);
      }
    }
    std::printf(
        "operator synced; steady RSS %.1f MiB more than before it started (%.2f KiB per "
        "cached pod)\n",
        (rss_kib() - rss_before) / 1024.0,
        double(rss_kib() - rss_before) / double(deployments * pods_per_deployment));
    for (std::size_t i = 0; i < failures && i < node_names.size(); ++i) {
      const std::string& node = node_names[i * node_names.size() / failures];
      std::set<std::string> waiting = deployments_on[node];
      const std::size_t affected = waiting.size();
      std::map<std::string, Clock::time_point> first_write;
      const auto t0 = Clock::now();
      store.update(node_type, "", node, fail_node);
      while (!waiting.empty()) {
        const auto events = co_await watcher->next();
        const auto now = Clock::now();
        if (events.empty()) throw std::runtime_error("the store closed the watch");
        for (const auto& event : events) {
          if (!event.previous || !waiting.contains(event.object->name)) continue;
          const auto first = first_write.try_emplace(event.object->name, now).first->second;
          if (spec_replicas(event.object) <= spec_replicas(event.previous)) continue;
          waiting.erase(event.object->name);
          latencies_ms.push_back(ms(now - t0));
          writes_ms.push_back(ms(now - first));
        }
      }
      const auto scaled = Clock::now();
      // Settle: one ScaledUpForStrandedPods Event written (created or patched) per Deployment.
      for (std::size_t written = 0; written < affected;) {
        const auto events = co_await event_watcher->next();
        if (events.empty()) throw std::runtime_error("the store closed the watch");
        for (const auto& event : events) {
          if (event.object->body.find("ScaledUpForStrandedPods") != std::string::npos) ++written;
        }
      }
      Clock::time_point earliest = Clock::time_point::max();
      for (const auto& [name, at] : first_write) earliest = std::min(earliest, at);
      first_write_ms.push_back(ms(earliest - t0));
      std::printf(
          "failure %zu (%s): %zu Deployments scaled up, the first write after %.1f ms, the last "
          "scale after %.1f ms, their Events %.1f ms later\n",
          i + 1, node.c_str(), affected, first_write_ms.back(), ms(scaled - t0),
          ms(Clock::now() - scaled));
    }
    store.unwatch(deployment_type, watcher);
    store.unwatch(event_type, event_watcher);
  };
  std::exception_ptr failure;
  asio::co_spawn(io, measure, [&](std::exception_ptr e) { failure = e; });
  io.run();

  asio::post(operator_io, [&] { stop.emit(asio::cancellation_type::terminal); });
  operator_thread.join();
  std::filesystem::remove(kubeconfig);
  if (failure) std::rethrow_exception(failure);

  for (auto* values : {&latencies_ms, &first_write_ms, &writes_ms})
    std::sort(values->begin(), values->end());
  const auto at = [](const std::vector<double>& values, double q) {
    return values[std::min(values.size() - 1, static_cast<std::size_t>(q * double(values.size())))];
  };
  std::printf(
      "node failure -> scale PATCH over %zu Deployments (%d workers): p50 %.2f ms, p99 %.2f ms, "
      "max %.2f ms\n",
      latencies_ms.size(), options.workers, at(latencies_ms, 0.50), at(latencies_ms, 0.99),
      latencies_ms.back());
  std::printf(
      "  node failure -> first write: p50 %.2f ms, max %.2f ms; a Deployment's first write -> "
      "its scale: p50 %.2f ms, p99 %.2f ms\n",
      at(first_write_ms, 0.50), first_write_ms.back(), at(writes_ms, 0.50), at(writes_ms, 0.99));
  return 0;
}
