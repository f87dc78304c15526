// Server: kube-sim in one object -- store, registry, HTTP(S) API server, authentication and
// authorization, and fault injection, running on its own io threads. For tests and benchmarks
// (start on an ephemeral port, talk to address(), stop()) and for the kube-sim binary.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/cert/certificates.hpp"
#include "client/config/rest_config.hpp"
#include "sim/admin_routes.hpp"
#include "sim/auth/auth_options.hpp"
#include "sim/collection_handlers.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"
#include "sim/registry.hpp"
#include "sim/resource_table.hpp"
#include "sim/write_record.hpp"

namespace rg::sim {

/// HTTPS serving (kube-apiserver's --tls-cert-file / --tls-private-key-file).
struct TlsOptions {
  bool enabled = false;
  /// PEM certificate chain and key; both empty = a CA and a serving certificate for 127.0.0.1
  /// and localhost are generated at start.
  std::string cert_file;
  std::string private_key_file;
  /// PEM CA bundle that client certificates must chain to (kube-apiserver's --client-ca-file);
  /// empty = the generated CA when one is generated, else no client-certificate authentication.
  std::string client_ca_file;
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;  ///< 0 = ephemeral
  int io_threads = 1;
  StoreOptions store;
  WatchSettings watch;
  std::size_t body_limit = std::size_t{3} * 1024 * 1024;
  TlsOptions tls;          ///< off by default in-process; the kube-sim binary turns it on
  auth::AuthOptions auth;  ///< off by default in-process; the kube-sim binary turns it on
};

class Server {
 public:
  /// Binds, bootstraps the default namespaces (and, with auth, the default RBAC policy) and
  /// starts serving on background threads. Throws std::runtime_error for unusable TLS files.
  explicit Server(ServerOptions options = {});
  ~Server();  ///< stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// "http://127.0.0.1:<port>" or "https://...".
  std::string address() const;
  unsigned short port() const;

  Store& store();
  Registry& registry();
  Faults& faults();
  /// Every write request since start (also served at /sim/writes).
  WriteRecord& writes();
  const ResourceTable& resources() const;
  /// Serves the admin path `prefix` (under /sim/) with `handler`: how the kube-sim binary and
  /// test fixtures expose the simulated Cluster (e.g. /sim/kubelets) without the Server
  /// depending on it. Authenticated and authorized like /sim/faults, never faulted.
  void route_admin(std::string prefix, AdminRoutes::Handler handler);

  /// The PEM clients trust for HTTPS (empty when serving plain HTTP).
  const std::string& ca_pem() const;
  /// The administrator's bearer token (user kubernetes-admin, group system:masters). Sent by
  /// the RestConfigs below; with auth off the server accepts any request anyway.
  const std::string& admin_token() const;

  /// Whether issue_client_certificate() works: serving HTTPS with the CA generated at start and
  /// no --client-ca-file, so kube-sim holds the key of the CA it verifies client certificates with.
  bool issues_client_certificates() const;
  /// A client certificate (ECDSA P-256, clientAuth, a year) for user `common_name` in `groups`
  /// (its O entries), signed by the generated CA. Throws std::logic_error when
  /// issues_client_certificates() is false.
  client::CertificateAndKey issue_client_certificate(std::string_view common_name,
                                                     const std::vector<std::string>& groups) const;

  /// Writes an admin kubeconfig that stock kubectl and replica-guard use unchanged: cluster with
  /// certificate-authority-data when serving HTTPS; user "kube-sim-user" with a client
  /// certificate for kubernetes-admin in system:masters (as kubeadm's admin.conf) when
  /// issues_client_certificates(), else the admin token; context "kube-sim", namespace default.
  /// Returns `path`.
  std::string write_kubeconfig(const std::string& path) const;
  /// The same for a bearer token (e.g. create_token()'s) and a default namespace.
  std::string write_kubeconfig(const std::string& path, std::string_view token,
                               std::string_view namespace_) const;

  /// The administrator's RestConfig: host, the CA when serving HTTPS, the admin token.
  client::RestConfig rest_config() const;
  /// A RestConfig authenticating with `token`, default namespace `namespace_`.
  client::RestConfig rest_config(std::string_view token, std::string_view namespace_) const;

  /// Mints a ServiceAccount token as the TokenRequest API does (API audiences). Throws ApiError
  /// 404 when the ServiceAccount does not exist.
  std::string create_token(std::string_view namespace_, std::string_view service_account,
                           std::chrono::seconds expiration = std::chrono::hours(1));
  /// Creates the ServiceAccount if it does not exist, and returns a RestConfig with a fresh
  /// token for it (namespace `namespace_`): the operator's view with least privilege.
  client::RestConfig service_account_config(std::string_view namespace_,
                                            std::string_view service_account);

  /// A restart of the API server that keeps its storage (also POST /sim/restart?seconds=N): for
  /// `down_for` it does not listen (connections are refused) and the simulated components
  /// cannot reach it (a control-plane outage); every connection and watch is closed and the
  /// watch history starts empty, so watches resumed afterwards get 410 Gone as after an etcd
  /// compaction. Objects, uids and resourceVersions (which keep increasing), the ServiceAccount
  /// signing key, the CA and the port stay.
  void restart(std::chrono::milliseconds down_for);

  /// Stops accepting, closes every connection and watch, joins the io threads. Idempotent.
  void stop();

 private:
  std::string write_kubeconfig_file(const std::string& path, std::string_view credentials,
                                    std::string_view namespace_) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::sim
