// sim_write_path_bench: what a PATCH costs kube-sim, in CPU time of its threads. An in-process
// kube-sim holds D Deployments (seeded with their ReplicaSets and P pods each, as the failover
// bench's cluster); W watches of Deployments stream every change (as the operator's informer
// does); K concurrent keep-alive writers over loopback each take the next Deployment and send
// the operator's two PATCHes: a patch of deployments/NAME/scale (with the Deployment's
// resourceVersion), then a merge patch recording the count in an annotation (with the
// resourceVersion the scale answered). Once with merge patches, once with
// strategic merge patches. The figure is the CPU time kube-sim's threads ran divided by the
// PATCHes sent (process CPU minus the bench's own thread, where the clients and watchers run):
// robust on a busy machine, where wall times are not.
//
// Usage: sim_write_path_bench [deployments=1000] [writers=16] [watchers=2] [rounds=5]
//                             [pods-per-deployment=10]
// (each round PATCHes every Deployment twice).

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "bench/process_stats.hpp"
#include "bench/run_until.hpp"
#include "client/rest/rest_client.hpp"
#include "sim/cluster/seed.hpp"
#include "sim/server.hpp"

namespace asio = boost::asio;
namespace json = boost::json;
using rg::bench::Clock;
using rg::bench::process_cpu_seconds;
using rg::bench::run_until;
using rg::bench::seconds_since;
using rg::bench::thread_cpu_seconds;

namespace {

struct Watching {
  std::size_t bytes = 0;
  std::size_t events = 0;
  bool started = false;
};

asio::awaitable<void> watch(rg::client::RestClient& client, std::string from, Watching& state) {
  rg::client::WatchOptions options;
  options.resource_version = std::move(from);
  options.timeout_seconds = 3600;
  rg::client::BodyReader body =
      co_await client.watch(rg::client::resources::deployments().in("default"), options);
  state.started = true;
  for (;;) {
    const std::string_view piece = co_await body.read_some();
    if (piece.empty()) co_return;
    state.bytes += piece.size();
    state.events += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
  }
}

struct Writers {
  rg::sim::Server& server;
  rg::client::RestClient& client;
  const std::vector<std::string>& names;
  rg::client::PatchType patch_type;
  const rg::sim::ResourceType* type = nullptr;
  std::size_t next = 0;
  std::size_t patches = 0;
};

std::string resource_version_of(const json::value& object) {
  return std::string(object.at("metadata").at("resourceVersion").as_string());
}

// One writer: the next Deployment's annotation PATCH (conditional on the version in the store,
// as the operator's record is on its cached copy's), then its scale PATCH (conditional on the
// version the first answer gave).
asio::awaitable<void> write(Writers& writers, std::size_t round) {
  const auto deployments = rg::client::resources::deployments().in("default");
  const auto scale = deployments.sub("scale");
  rg::client::PatchOptions options;
  options.field_manager = "replica-guard";
  while (writers.next < writers.names.size()) {
    const std::string& name = writers.names[writers.next++];
    const auto current = writers.server.store().get(*writers.type, "default", name);
    const auto replicas = static_cast<std::int64_t>(round + 2);
    const json::value resize = {
        {"metadata", {{"resourceVersion", std::to_string(current->resource_version)}}},
        {"spec", {{"replicas", replicas}}}};
    const json::value scaled = co_await writers.client.patch(scale, name, writers.patch_type,
                                                             json::serialize(resize), options);
    const json::value record = {
        {"metadata",
         {{"resourceVersion", resource_version_of(scaled)},
          {"annotations", {{"replica-guard.io/applied-replicas", std::to_string(replicas)}}}}}};
    co_await writers.client.patch(deployments, name, writers.patch_type, json::serialize(record),
                                  options);
    writers.patches += 2;
  }
}

void write_rounds(asio::io_context& io, rg::sim::Server& server, rg::client::RestClient& client,
                  const std::vector<std::string>& names, std::size_t writer_count,
                  std::size_t first_round, std::size_t rounds, rg::client::PatchType patch_type,
                  const char* label, std::vector<Watching>& watching) {
  std::size_t patches = 0;
  const std::size_t events_before = watching.front().events;
  const double sim_before = process_cpu_seconds() - thread_cpu_seconds();
  const auto start = Clock::now();
  for (std::size_t round = first_round; round < first_round + rounds; ++round) {
    Writers writers{server, client, names, patch_type,
                    server.resources().find("apps", "v1", "deployments")};
    std::size_t running = writer_count;
    std::exception_ptr failure;
    for (std::size_t w = 0; w < writer_count; ++w)
      asio::co_spawn(io, write(writers, round), [&](const std::exception_ptr& error) {
        if (error && !failure) failure = error;
        --running;
      });
    run_until(io, failure, [&] { return running == 0; });
    patches += writers.patches;
  }
  // Every watcher has seen every change before the CPU is read: the fan-out is in the figure.
  const std::size_t expected = events_before + patches;
  std::exception_ptr none;
  run_until(io, none, [&] {
    return std::all_of(watching.begin(), watching.end(),
                       [&](const Watching& w) { return w.events >= expected; });
  });
  const double took = seconds_since(start);
  const double sim_us = (process_cpu_seconds() - thread_cpu_seconds() - sim_before) * 1e6;
  std::printf(
      "  %-16s %6zu PATCHes, %zu writers, %zu watchers: kube-sim CPU %.1f us per PATCH, "
      "%.0f PATCH/s wall\n",
      label, patches, writer_count, watching.size(), sim_us / static_cast<double>(patches),
      static_cast<double>(patches) / took);
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int index, std::size_t fallback) {
    return argc > index ? std::strtoull(argv[index], nullptr, 10) : fallback;
  };
  const std::size_t deployments = arg(1, 1000);
  const std::size_t writers = arg(2, 16);
  const std::size_t watchers = arg(3, 2);
  const std::size_t rounds = arg(4, 5);
  const std::size_t pods_per_deployment = arg(5, 10);
  if (deployments == 0 || writers == 0 || watchers == 0 || rounds == 0) {
    std::fprintf(stderr,
                 "usage: sim_write_path_bench [deployments>0] [writers>0] [watchers>0] "
                 "[rounds>0] [pods-per-deployment]\n");
    return 2;
  }
  try {
    rg::sim::Server server;
    rg::sim::seed_nodes(server.store(), 100);
    rg::sim::DeploymentSeed seed;
    seed.deployments = deployments;
    seed.pods_per_deployment = pods_per_deployment;
    rg::sim::seed_deployments(server.store(), seed);
    std::vector<std::string> names;
    for (std::size_t i = 1; i <= deployments; ++i) names.push_back("app-" + std::to_string(i));

    asio::io_context io;
    rg::client::RestConfig config = server.rest_config();
    config.timeout = std::chrono::minutes(10);
    rg::client::RestClient client(config);
    std::vector<Watching> watching(watchers);
    std::exception_ptr failure;
    const std::string from = std::to_string(server.store().resource_version());
    for (auto& state : watching)
      asio::co_spawn(io, watch(client, from, state), [&](const std::exception_ptr& error) {
        if (error && !failure) failure = error;
      });
    run_until(io, failure, [&] {
      return std::all_of(watching.begin(), watching.end(),
                         [](const Watching& w) { return w.started; });
    });

    std::printf("kube-sim write path: %zu Deployments, %zu pods, %zu rounds\n", deployments,
                deployments * pods_per_deployment, rounds);
    // Every round writes new values (a PATCH that changes nothing is cheaper: no event).
    write_rounds(io, server, client, names, writers, 0, rounds, rg::client::PatchType::kMerge,
                 "merge patch", watching);
    write_rounds(io, server, client, names, writers, rounds, rounds,
                 rg::client::PatchType::kStrategicMerge, "strategic merge", watching);
    server.stop();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sim_write_path_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
