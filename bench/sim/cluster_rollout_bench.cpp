// sim_cluster_rollout_bench: what the simulated cluster's Events cost when it creates pods. An
// in-process Store and Cluster (timings scaled by 1/1000, so a pod starts 2 ms after binding) on
// N nodes; a Deployment of R replicas is created, then scaled to 2R, then back to R; the figure
// is the process CPU time (and wall time) from the create until every pod of the last step is
// Ready or gone, run alternately with Events on and off (ClusterOptions::record_events), K
// times each. CPU time, not wall time, is the robust number on a busy machine.
//
// Usage: sim_cluster_rollout_bench [replicas=500] [nodes=20] [rounds=3]

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench/process_stats.hpp"
#include "bench/run_until.hpp"
#include "sim/cluster/cluster.hpp"
#include "sim/object_store.hpp"
#include "sim/registry.hpp"
#include "sim/resource_table.hpp"

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

struct Result {
  double cpu_seconds;
  double wall_seconds;
  std::size_t events;
};

std::size_t ready_pods(rg::sim::Store& store, const rg::sim::ResourceType& pods) {
  std::size_t ready = 0;
  const auto list = store.list(pods, "default");
  for (const auto& item : list->items) {
    const auto pod = item->parse();
    if (pod.at("metadata").as_object().contains("deletionTimestamp")) continue;
    const auto* status = pod.at("status").as_object().if_contains("conditions");
    if (status == nullptr) continue;
    for (const auto& condition : status->as_array())
      if (condition.at("type") == "Ready" && condition.at("status") == "True") ++ready;
  }
  return ready;
}

std::size_t live_pods(rg::sim::Store& store, const rg::sim::ResourceType& pods) {
  return store.list(pods, "default")->items.size();
}

Result run_once(bool record_events, int replicas, int nodes) {
  const auto& table = rg::sim::ResourceTable::builtin();
  const auto& pods = *table.find("", "v1", "pods");
  const auto& deployments = *table.find("apps", "v1", "deployments");
  rg::sim::Store store;
  rg::sim::Registry registry(store, table);
  registry.bootstrap();
  asio::io_context io;
  rg::sim::ClusterOptions options = rg::sim::ClusterOptions{}.scaled(0.001);
  options.retry_delay = std::chrono::milliseconds(5);
  options.record_events = record_events;
  rg::sim::Cluster cluster(store, options, io.get_executor());
  cluster.seed_nodes(static_cast<std::size_t>(nodes));
  std::exception_ptr failure;
  asio::cancellation_signal stop;
  bool finished = false;
  asio::co_spawn(
      io, cluster.run(),
      asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { finished = true; }));
  auto scale = [&](int count) {
    registry.update(deployments, "default", "web", "",
                    [&](json::object view) {
                      view["spec"].as_object()["replicas"] = count;
                      view["metadata"].as_object().erase("resourceVersion");
                      return view;
                    },
                    {"bench"});
  };
  const double cpu_start = rg::bench::process_cpu_seconds();
  const auto wall_start = rg::bench::Clock::now();
  json::object deployment{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", "web"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "web"}}}}},
          {"spec", {{"containers", json::array{{{"name", "web"}, {"image", "nginx:1.27"}}}}}}}}}}};
  registry.create(deployments, "default", std::move(deployment), {"bench"});
  const auto want = static_cast<std::size_t>(replicas);
  rg::bench::run_until(io, failure, [&] { return ready_pods(store, pods) == want; });
  scale(2 * replicas);
  rg::bench::run_until(io, failure, [&] { return ready_pods(store, pods) == 2 * want; });
  scale(replicas);
  rg::bench::run_until(io, failure, [&] { return live_pods(store, pods) == want; });
  Result result{rg::bench::process_cpu_seconds() - cpu_start, rg::bench::seconds_since(wall_start),
                store.list(*table.find("", "v1", "events"), "")->items.size()};
  stop.emit(asio::cancellation_type::terminal);
  while (!finished) io.run_for(std::chrono::milliseconds(10));
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const int replicas = argc > 1 ? std::atoi(argv[1]) : 500;
  const int nodes = argc > 2 ? std::atoi(argv[2]) : 20;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  std::printf("%d replicas -> %d -> %d on %d nodes, %d rounds\n", replicas, 2 * replicas, replicas,
              nodes, rounds);
  try {
    for (int round = 0; round < rounds; ++round)
      for (bool events : {true, false}) {
        const auto r = run_once(events, replicas, nodes);
        std::printf("events %-3s  cpu %.3f s  wall %.3f s  events stored %zu\n",
                    events ? "on" : "off", r.cpu_seconds, r.wall_seconds, r.events);
        std::fflush(stdout);
      }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sim_cluster_rollout_bench: %s\n", error.what());
    return 1;
  }
}
