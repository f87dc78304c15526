// ExecCredential: the AuthProvider for kubeconfig `exec` credential plugins
// (client.authentication.k8s.io v1 and v1beta1). Runs the plugin asynchronously with
// KUBERNETES_EXEC_INFO, reads status.token, status.clientCertificateData/clientKeyData and
// status.expirationTimestamp from its ExecCredential output, and caches them until they expire or
// invalidate() is called (after a 401). A token goes into the Authorization header; a
// certificate is presented in the TLS handshakes of new connections (see client_certificate()).
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

  /// What one plugin run returned: a token, a client certificate, or both.
  struct Credentials {
    std::string token;                                            ///< empty when only a certificate
    std::shared_ptr<const ClientCertificate> certificate;         ///< null when only a token
    std::optional<std::chrono::system_clock::time_point> expiry;  ///< none: until invalidate()
  };

  /// The cached credentials, running the plugin when there are none or they have expired.
  /// Callers that arrive while the plugin runs wait for that run instead of starting another
  /// one. Throws ExecPluginError when the plugin cannot be run, fails or returns something
  /// unusable (the message names the plugin and the problem).
  boost::asio::awaitable<std::shared_ptr<const Credentials>> credentials();

  /// "Bearer <token>", or empty when the plugin returns only a client certificate.
  boost::asio::awaitable<std::string> authorization() override;
  /// The plugin's client certificate, or null. The pointer stays the same while the plugin
  /// keeps returning the same certificate, even across runs, so only a real rotation makes the
  /// transport drop its connections.
  boost::asio::awaitable<std::shared_ptr<const ClientCertificate>> client_certificate() override;
  void invalidate() override;

  /// How many times the plugin has been run (for tests and diagnostics).
  int runs() const;

  /// The KUBERNETES_EXEC_INFO value the plugin gets.
  std::string exec_info() const;

  /// Reads one plugin output (an ExecCredential of the configured apiVersion). Throws
  /// ExecPluginError naming the plugin and what is wrong with the output.
  Credentials parse_output(const std::string& output) const;

 private:
  class Flight;

  /// Runs the plugin, caches its credentials and returns them.
  boost::asio::awaitable<std::shared_ptr<const Credentials>> run_plugin();

  ExecConfig config_;
  ExecClusterInfo cluster_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Credentials> cached_;  ///< guarded by mutex_
  /// The last certificate handed out, kept across invalidate() so an unchanged certificate
  /// keeps its identity; guarded by mutex_.
  std::shared_ptr<const ClientCertificate> last_certificate_;
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
