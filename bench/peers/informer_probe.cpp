// informer_probe: replica-guard's informer as an operator uses it (a SharedInformerFactory, one
// SharedIndexInformer, a counting event handler), measured the way bench/peers/run.py measures
// the official clients' informers, one JSON line each:
//
//   {"phase":"synced", ...}     once the cache has synced (has_synced polled every millisecond)
//   {"phase":"done", ...}       after `--updates K` update notifications (0: right after synced)
//
// Fields: client, version, objects (in the cache), synced_seconds and synced_cpu_seconds (from
// just before the informer starts), rss_start_mib / rss_synced_mib / rss_peak_mib (VmRSS before
// the informer starts, at synced, and VmHWM at the end: the whole process), and after the updates
// updates, updates_seconds and updates_cpu_seconds (from the first update notification to the
// last), updates_per_second, updates_per_cpu_second.
//
// Usage: informer_probe [--kubeconfig PATH] [--resource pods|nodes|deployments]
//                       [--namespace NS] [--updates K] [--watch-list] [--timeout SECONDS]
#include <CLI/CLI.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "bench/process_stats.hpp"
#include "client/config/resolve.hpp"
#include "client/model/deployment.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "client/version.hpp"
#include "informer/shared_informer_factory.hpp"

namespace asio = boost::asio;
namespace json = boost::json;
using rg::bench::Clock;

namespace {

struct ProbeOptions {
  std::string kubeconfig;
  std::string resource = "pods";
  std::string namespace_;
  std::size_t updates = 0;
  bool watch_list = false;
  double timeout_seconds = 1800;
};

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void print(const json::object& line) {
  std::cout << json::serialize(line) << std::endl;  // flushed: run.py waits for each line
}

// Informs on T until `updates` update notifications have arrived; prints both lines.
template <class T>
asio::awaitable<void> probe(rg::client::RestClient& client, rg::client::ResourceRef resource,
                            const ProbeOptions& options) {
  const auto executor = co_await asio::this_coro::executor;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.timeout_seconds));
  rg::informer::SharedInformerFactoryOptions factory_options;
  factory_options.namespace_ = options.namespace_;
  factory_options.reflector.use_watch_list = options.watch_list;
  rg::informer::SharedInformerFactory factory(client, factory_options);
  auto& informer = factory.informer_for<T>(std::move(resource));

  std::size_t updates = 0;
  Clock::time_point first_update{};
  double first_update_cpu = 0;
  asio::steady_timer all_updates(executor, Clock::time_point::max());
  informer.add_event_handler("probe", {.on_update = [&](const auto&, const auto&) {
                               if (updates++ == 0) {
                                 first_update = Clock::now();
                                 first_update_cpu = rg::bench::process_cpu_seconds();
                               }
                               if (updates == options.updates) all_updates.cancel();
                             }});

  json::object line{{"client", "replica-guard"}, {"version", std::string(rg::kVersion)}};
  line["rss_start_mib"] = mib(rg::bench::resident_bytes());
  const auto start = Clock::now();
  const double start_cpu = rg::bench::process_cpu_seconds();
  factory.start(executor);
  asio::steady_timer poll(executor);
  while (!informer.has_synced()) {
    if (Clock::now() >= deadline) {
      throw std::runtime_error("not synced within --timeout: " + informer.status().message);
    }
    poll.expires_after(std::chrono::milliseconds(1));
    co_await poll.async_wait(asio::use_awaitable);
  }
  line["synced_seconds"] = rg::bench::seconds_since(start);
  line["synced_cpu_seconds"] = rg::bench::process_cpu_seconds() - start_cpu;
  line["objects"] = informer.indexer().size();
  line["rss_synced_mib"] = mib(rg::bench::resident_bytes());
  line["phase"] = "synced";
  print(line);

  if (options.updates > 0) {
    all_updates.expires_at(deadline);
    if (updates < options.updates) {
      boost::system::error_code ec;
      co_await all_updates.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) {
        throw std::runtime_error("saw " + std::to_string(updates) + " of " +
                                 std::to_string(options.updates) + " updates within --timeout");
      }
    }
    const double seconds = rg::bench::seconds_since(first_update);
    const double cpu = rg::bench::process_cpu_seconds() - first_update_cpu;
    line["updates"] = updates;
    line["updates_seconds"] = seconds;
    line["updates_cpu_seconds"] = cpu;
    line["updates_per_second"] = static_cast<double>(updates) / seconds;
    line["updates_per_cpu_second"] = static_cast<double>(updates) / cpu;
  }
  line["rss_peak_mib"] = mib(rg::bench::peak_resident_bytes());
  line["phase"] = "done";
  print(line);
  co_await factory.shutdown();
}

asio::awaitable<void> probe(rg::client::RestClient& client, const ProbeOptions& options) {
  namespace resources = rg::client::resources;
  if (options.resource == "pods") return probe<rg::client::Pod>(client, resources::pods(), options);
  if (options.resource == "nodes")
    return probe<rg::client::Node>(client, resources::nodes(), options);
  return probe<rg::client::Deployment>(client, resources::deployments(), options);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"informer_probe: replica-guard's informer, timed to synced and through updates"};
  ProbeOptions options;
  app.add_option("--kubeconfig", options.kubeconfig,
                 "Kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--resource", options.resource, "What to inform on")
      ->check(CLI::IsMember({"pods", "nodes", "deployments"}))
      ->capture_default_str();
  app.add_option("--namespace", options.namespace_, "Only this namespace (default: all)");
  app.add_option("--updates", options.updates,
                 "Update notifications to wait for after synced (0: stop at synced)")
      ->capture_default_str();
  app.add_flag("--watch-list", options.watch_list,
               "Sync by a streaming WatchList instead of a paginated LIST (500 a page)");
  app.add_option("--timeout", options.timeout_seconds, "Give up after this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!options.namespace_.empty() && options.resource == "nodes") {
    std::cerr << "informer_probe: nodes are cluster-scoped; leave out --namespace\n";
    return 2;
  }
  try {
    rg::client::ResolveOptions resolve;
    resolve.kubeconfig = options.kubeconfig;
    asio::io_context io;  // outlives the client, whose connections run on it
    rg::client::RestClient client(rg::client::resolve_config(resolve));
    std::exception_ptr failure;
    asio::co_spawn(io, probe(client, options), [&](std::exception_ptr error) { failure = error; });
    io.run();
    if (failure) std::rethrow_exception(failure);
  } catch (const std::exception& error) {
    std::cerr << "informer_probe: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
