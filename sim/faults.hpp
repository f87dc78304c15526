// Faults: fault injection for tests and benchmarks, driven through the admin endpoint
// /sim/faults (outside the Kubernetes paths; see sim/README.md): error answers for a fraction
// of requests, added latency, stalls, dropping all watches, compacting history, closing every
// connection, a control-plane outage for a while, and partitions of one client identity. The
// simulated cluster's components, which write the store directly, ask reachable() before each
// write, so an outage or a partition reaches them as it would through the API.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sim/http_types.hpp"
#include "sim/object_store.hpp"

namespace rg::sim {

/// One client identity: by the user its requests act as, and/or by its User-Agent (with auth
/// off every request acts as the admin, so in-process clients are told apart by User-Agent;
/// replica-guard names its leader-election identity there). Empty fields match everyone; the
/// given ones must all match.
struct ClientScope {
  std::string user;
  std::string user_agent_prefix;
  std::string user_agent_contains;

  bool matches(std::string_view request_user, std::string_view user_agent) const;
  bool everyone() const;
};

struct FaultConfig {
  double error_rate = 0;        ///< fraction of API requests answered with error_code
  int error_code = 503;         ///< 429, 500 or 503
  int retry_after_seconds = 1;  ///< Retry-After of 429/503 answers
  int latency_ms = 0;           ///< added before every API request
  int latency_jitter_ms = 0;    ///< up to this much more, uniformly at random
  ClientScope scope;            ///< the clients errors and latency apply to (default everyone)
};

/// How requests fail during an outage or a partition: answered 503 at once, or held until it
/// ends (as a client sees an unreachable server: its own timeout decides).
enum class OutageMode { fail, stall };

/// Requests of one client identity that fail (or stall) for a while.
struct Partition {
  ClientScope client;
  std::chrono::steady_clock::time_point until;
  OutageMode mode = OutageMode::fail;
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

  /// A control-plane outage for `duration` from now: every API request fails (or stalls), and
  /// the simulated components' writes do not reach the store (reachable() is false).
  void control_plane_outage(std::chrono::milliseconds duration, OutageMode mode = OutageMode::fail);
  /// Partitions one identity (see Partition) for `duration` from now.
  void partition(std::string user, std::string user_agent_prefix,
                 std::chrono::milliseconds duration, OutageMode mode = OutageMode::fail);
  void partition(ClientScope client, std::chrono::milliseconds duration,
                 OutageMode mode = OutageMode::fail);
  /// Ends every outage and partition now.
  void heal();
  /// Whether a request of `user` with `user_agent` would reach the API server now: no
  /// control-plane outage, no partition of that identity. For the simulated components.
  bool reachable(std::string_view user, std::string_view user_agent) const;

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
  std::chrono::steady_clock::time_point outage_until_{};
  OutageMode outage_mode_ = OutageMode::fail;
  std::vector<Partition> partitions_;
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace rg::sim
