// ExecCredential: the AuthProvider for kubeconfig `exec` credential plugins
// (client.authentication.k8s.io v1 and v1beta1). Runs the plugin asynchronously with
// KUBERNETES_EXEC_INFO, reads status.token and status.expirationTimestamp from its ExecCredential
// output, and caches the token until it expires or invalidate() is called (after a 401).
// Client certificates returned by plugins are not supported: such a plugin gives a clear error.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/config/rest_config.hpp"

namespace rg::client {

/// The `exec` section of a kubeconfig user.
struct ExecConfig {
  std::string api_version;  ///< client.authentication.k8s.io/v1 or /v1beta1
  std::string command;      ///< already resolved against the kubeconfig's folder if relative
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode = "IfAvailable";  ///< Never, IfAvailable or Always
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

/// What `provideClusterInfo: true` passes to the plugin in spec.cluster.
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority_pem;
};

class ExecCredential : public AuthProvider {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;

  /// `clock` is injectable so tests can step past an expiry without waiting.
  explicit ExecCredential(
      ExecConfig config, ExecClusterInfo cluster = {},
      Clock clock = [] { return std::chrono::system_clock::now(); });

  /// "Bearer <token>", running the plugin when there is no unexpired cached token. Callers that
  /// arrive while the plugin runs wait for that run instead of starting another one. Throws
  /// ExecPluginError when the plugin cannot be run, fails or returns something unusable.
  boost::asio::awaitable<std::string> authorization() override;
  void invalidate() override;

  /// How many times the plugin has been run (for tests and diagnostics).
  int runs() const;

  /// The KUBERNETES_EXEC_INFO value the plugin gets.
  std::string exec_info() const;

 private:
  struct Cached {
    std::string token;
    std::optional<std::chrono::system_clock::time_point> expiry;
  };

  class Flight;

  Cached parse_output(const std::string& output) const;
  /// Runs the plugin, caches its token and returns the header.
  boost::asio::awaitable<std::string> run_plugin();

  ExecConfig config_;
  ExecClusterInfo cluster_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::optional<Cached> cached_;    ///< guarded by mutex_
  int runs_ = 0;                    ///< guarded by mutex_
  std::shared_ptr<Flight> flight_;  ///< the run in progress, if any; guarded by mutex_
};

/// An exec plugin that could not be run or failed; the message names the command, its exit
/// status and its stderr.
class ExecPluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rg::client
