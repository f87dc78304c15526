// kube-sim: an embedded Kubernetes API server for tests, demos and benchmarks. See README.md.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <iostream>

#include "sim/server.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kube-sim: an embedded Kubernetes API server"};
  rg::sim::ServerOptions options;
  std::string kubeconfig;
  int bookmark_seconds = 60;
  app.add_option("--address", options.address, "Address to listen on")->capture_default_str();
  app.add_option("--port", options.port, "Port to listen on (0 = an ephemeral port)")
      ->capture_default_str();
  app.add_option("--io-threads", options.io_threads, "Threads serving requests")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--watch-history", options.store.watch_history,
                 "Events kept per resource for watch resumes (older resourceVersions get 410)")
      ->capture_default_str();
  app.add_option("--bookmark-interval", bookmark_seconds, "Seconds between watch BOOKMARK events")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--write-kubeconfig", kubeconfig,
                 "Write an admin kubeconfig for this server to PATH");
  CLI11_PARSE(app, argc, argv);
  options.watch.bookmark_interval = std::chrono::seconds(bookmark_seconds);

  try {
    rg::sim::Server server(options);
    if (!kubeconfig.empty()) server.write_kubeconfig(kubeconfig);
    std::cout << "kube-sim serving on " << server.address() << std::endl;
    boost::asio::io_context signals_io;
    boost::asio::signal_set signals(signals_io, SIGINT, SIGTERM);
    signals.async_wait([](const boost::system::error_code&, int) {});
    signals_io.run();
    server.stop();
  } catch (const std::exception& error) {
    std::cerr << "kube-sim: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
