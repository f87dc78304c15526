// Faults: fault injection for tests and benchmarks, driven through the admin endpoint
// /sim/faults (outside the Kubernetes paths; see sim/README.md): error answers for a fraction
// of requests, added latency, stalls, dropping all watches, compacting history, closing every
// connection.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <mutex>
#include <random>

#include "sim/http_types.hpp"
#include "sim/object_store.hpp"

namespace rg::sim {

struct FaultConfig {
  double error_rate = 0;        ///< fraction of API requests answered with error_code
  int error_code = 503;         ///< 429, 500 or 503
  int retry_after_seconds = 1;  ///< Retry-After of 429/503 answers
  int latency_ms = 0;           ///< added before every API request
};

class Faults {
 public:
  Faults(Store& store, std::function<void()> close_connections);

  FaultConfig config() const;
  void set_config(const FaultConfig& config);
  /// Holds every API request for `seconds` from now.
  void stall(std::chrono::milliseconds duration);
  void drop_watches() { store_.close_all_watchers(); }
  void compact() { store_.compact(); }
  void close_connections() { close_connections_(); }

  /// The ApiServer hook: serves /sim/faults and applies the configured faults to every other
  /// request. Returns true when it answered.
  boost::asio::awaitable<bool> intercept(HttpRequest& request, ResponseStream& stream);

 private:
  boost::asio::awaitable<bool> serve_admin(HttpRequest& request, ResponseStream& stream);

  Store& store_;
  std::function<void()> close_connections_;
  mutable std::mutex mutex_;
  FaultConfig config_;
  std::chrono::steady_clock::time_point stalled_until_{};
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace rg::sim
