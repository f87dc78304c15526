// Manager: the running operator. From the flags it builds the client, the shared informers for
// Deployments, Pods, Nodes, HPAs and node Leases, their handlers (which only enqueue Deployment
// keys, or record node observations), the node Lease sweep, the workqueue and its coroutine
// workers, leader election, Events, metrics, and the /metrics and probe servers; run() serves
// until cancelled, then drains in-flight reconciles (bounded), stops the informers, releases the
// lease and returns. It only wires: each part lives in its own file.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <memory>
#include <string>

#include "client/config/rest_config.hpp"
#include "client/transport/transport_tracer.hpp"
#include "operator/options.hpp"

namespace rg::op {

class Manager {
 public:
  /// Throws std::invalid_argument for bad flags and client::ConfigError for an unusable
  /// kubeconfig, each naming what is wrong. `tracer` (may be null) sees every request the
  /// operator writes and every response body piece it reads, as they happen (latency tracing).
  Manager(Options options, client::RestConfig config,
          std::shared_ptr<client::TransportTracer> tracer = nullptr);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// This instance's leader-election identity (hostname and a random suffix).
  const std::string& identity() const;

  /// Runs until cancelled; returns normally after a clean shutdown.
  boost::asio::awaitable<void> run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::op
