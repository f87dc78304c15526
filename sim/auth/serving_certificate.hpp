// ServingCertificate: kube-sim's TLS identity -- generated at start (a CA and a serving
// certificate for 127.0.0.1 and localhost) or loaded from files, as kube-apiserver's
// --tls-cert-file / --tls-private-key-file -- and the server's OpenSSL context for it.
#pragma once

#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace rg::sim::auth {

struct ServingCertificate {
  std::string ca_pem;    ///< what clients trust: the generated CA, or the loaded chain
  std::string cert_pem;  ///< the serving certificate (chain)
  std::string key_pem;
  std::string ca_key_pem;  ///< the generated CA's key (it signs client certificates); "" if loaded
};

/// A fresh CA ("kube-sim-ca", kept with its key) and a serving certificate signed by it, valid for
/// 127.0.0.1, ::1, localhost, the kubernetes service names, and `address` when it is a specific
/// one. Throws std::runtime_error when OpenSSL fails.
ServingCertificate generate_serving_certificate(const std::string& address);

/// Reads a PEM certificate chain and its private key. The chain doubles as what clients trust
/// (kubectl trusts any certificate of certificate-authority-data, so a self-signed certificate
/// or a chain ending with its CA works). Throws std::runtime_error naming the unreadable file.
ServingCertificate load_serving_certificate(const std::string& cert_file,
                                            const std::string& key_file);

/// Reads the CA bundle that verifies client certificates (--client-ca-file). Throws
/// std::runtime_error naming the unreadable file.
std::string load_client_ca(const std::string& client_ca_file);

/// A TLS >= 1.2 server context serving `certificate` that, with a `client_ca_pem`, requests
/// client certificates and checks them against it (client_certificates.hpp). Throws
/// std::runtime_error when the certificate, key or client CA does not load or they do not match.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(
    const ServingCertificate& certificate, const std::string& client_ca_pem);

}  // namespace rg::sim::auth
