// peers_kube_sim: the API server of the peer comparison (bench/peers/run.py) -- kube-sim's
// server, HTTPS with its admin kubeconfig as the kube-sim binary serves it, holding the first N
// pods of the benchmarks' fleet (bench/seed_pods.hpp) and no simulated cluster (no kubelets or
// controllers write while the clients are measured). One admin endpoint makes the stream of
// updates every client is measured on:
//
//   POST /sim/bench/modify-pods?count=K
//
// changes one annotation (bench.replica-guard.io/update, a running number) on K distinct pods
// (the fleet's first K; K <= N), one MODIFIED watch event each, all written before the answer
// `{"modified": K, "resourceVersion": "..."}`. The events wait in each watch's buffer (kube-sim
// keeps up to 100,000 per watch), so a client's rate is how fast it drains them.
//
// Usage: peers_kube_sim --pods N --write-kubeconfig PATH
//        prints "kube-sim serving on https://127.0.0.1:PORT" once the pods are stored; runs until
//        SIGINT or SIGTERM.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <boost/json/serialize.hpp>

#include <csignal>
#include <cstdint>
#include <iostream>
#include <string>

#include "bench/seed_pods.hpp"
#include "sim/api_error.hpp"
#include "sim/responses.hpp"
#include "sim/server.hpp"

namespace json = boost::json;

namespace {

constexpr std::string_view kUpdateAnnotation = "bench.replica-guard.io/update";

// The handler of /sim/bench/modify-pods for a server holding `pods` fleet pods.
rg::sim::AdminRoutes::Handler modify_pods(rg::sim::Server& server, std::size_t pods) {
  auto sequence = std::make_shared<std::uint64_t>(0);  // only touched under the route's calls
  return [&server, pods, sequence](const rg::sim::HttpRequest& request) {
    if (request.method != "POST" || request.path != "/sim/bench/modify-pods")
      throw rg::sim::errors::path_not_found();
    const auto param = request.param("count");
    std::size_t count = 0;
    try {
      count = param ? std::stoul(std::string(*param)) : 0;
    } catch (const std::exception&) {
      count = 0;
    }
    if (count == 0 || count > pods) {
      throw rg::sim::errors::bad_request(fmt::format(
          "say how many pods to modify: ?count=K with 1 <= K <= {} (the pods stored)", pods));
    }
    const auto& type = *server.resources().find("", "v1", "pods");
    for (std::size_t i = 0; i < count; ++i) {
      const auto spec = rg::bench::fleet_pod_spec(i);
      const std::string value = std::to_string(++*sequence);
      server.store().update(type, spec.namespace_, rg::sim::realistic_pod_name(spec),
                            [&value](const rg::sim::StoredObject&, json::object object) {
                              auto& metadata = object["metadata"].as_object();
                              if (!metadata["annotations"].is_object())
                                metadata["annotations"] = json::object{};
                              metadata["annotations"].as_object()[kUpdateAnnotation] = value;
                              return object;
                            });
    }
    return rg::sim::json_response(
        200, json::serialize(json::object{
                 {"modified", count},
                 {"resourceVersion", std::to_string(server.store().resource_version())}}));
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"peers_kube_sim: kube-sim's API server holding N realistic pods, for bench/peers"};
  std::size_t pods = 0;
  std::string kubeconfig;
  app.add_option("--pods", pods, "Realistic pods to store (the benchmarks' fleet)")->required();
  app.add_option("--write-kubeconfig", kubeconfig, "Write the admin kubeconfig to PATH")
      ->required();
  CLI11_PARSE(app, argc, argv);

  // Blocked before the server's threads start, so they inherit the mask and sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    rg::sim::ServerOptions options;
    options.tls.enabled = true;   // as the kube-sim binary serves: HTTPS,
    options.auth.enabled = true;  // client certificates and RBAC
    rg::sim::Server server(options);
    rg::bench::seed_pods(server, pods);
    server.route_admin("/sim/bench", modify_pods(server, pods));
    server.write_kubeconfig(kubeconfig);
    std::cout << "kube-sim serving on " << server.address() << std::endl;
    int signal = 0;
    sigwait(&stop_signals, &signal);
    server.stop();
  } catch (const std::exception& error) {
    std::cerr << "peers_kube_sim: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
