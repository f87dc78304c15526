// RestConfig: everything the transport needs to reach one API server, however it was found
// (kubeconfig, in-cluster service account, or built by hand in tests).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace rg::client {

/// TLS settings for one server. PEM strings hold the file contents, already read.
struct TlsConfig {
  std::string ca_pem;           ///< trusted CA bundle; empty = the system's default paths
  std::string client_cert_pem;  ///< client certificate chain (mutual TLS), optional
  std::string client_key_pem;   ///< its private key
  std::string server_name;      ///< SNI and name to verify; empty = the host of RestConfig::host
  bool insecure_skip_verify = false;
};

/// A client certificate (PEM chain) and its private key, supplied by an AuthProvider.
struct ClientCertificate {
  std::string cert_pem;
  std::string key_pem;
};

/// Supplies the Authorization header of each request, and possibly a client certificate for the
/// TLS handshake. Implementations: static bearer token, token file re-read when it changes, exec
/// credential plugin (token and/or certificate, cached until expiry).
class AuthProvider {
 public:
  virtual ~AuthProvider() = default;
  /// The full header value ("Bearer <token>"), or empty for none.
  virtual boost::asio::awaitable<std::string> authorization() = 0;
  /// Called after a 401 so the next authorization() fetches a fresh credential.
  virtual void invalidate() {}
  /// The client certificate new TLS connections present, or null for none. The same pointer
  /// comes back until the credential rotates: a different pointer tells the transport to stop
  /// reusing connections made with the old one. A static TlsConfig::client_cert_pem wins over it.
  virtual boost::asio::awaitable<std::shared_ptr<const ClientCertificate>> client_certificate() {
    co_return nullptr;
  }
};

/// How to reach and authenticate to one API server.
struct RestConfig {
  std::string host;  ///< scheme://host:port, e.g. "https://127.0.0.1:6443"
  TlsConfig tls;
  std::shared_ptr<AuthProvider> auth;  ///< may be null: anonymous
  std::string namespace_ = "default";  ///< default namespace (from the context or the pod)
  std::string source;                  ///< where it came from, for error messages
  double qps = 0;                      ///< client-side rate limit; 0 = unlimited
  int burst = 0;
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};  ///< per request (not watches)
};

}  // namespace rg::client
