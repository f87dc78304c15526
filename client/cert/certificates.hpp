// Self-signed certificate generation with OpenSSL 3 (what client-go's util/cert offers): a CA,
// and leaf certificates (server and/or client) signed by it. kube-sim serves HTTPS with these
// and issues its admin client certificate; TLS tests use them on both sides.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rg::client {

enum class KeyType { kEcdsaP256, kRsa2048 };

/// A certificate and its private key, both PEM encoded.
struct CertificateAndKey {
  std::string cert_pem;
  std::string key_pem;
};

/// What to put in a leaf certificate.
struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> dns_names;      ///< subjectAltName DNS entries
  std::vector<std::string> ip_addresses;   ///< subjectAltName IP entries (IPv4 or IPv6 text)
  std::vector<std::string> organizations;  ///< O= entries (Kubernetes reads them as groups)
  bool server_auth = true;                 ///< extendedKeyUsage serverAuth
  bool client_auth = false;                ///< extendedKeyUsage clientAuth
  KeyType key_type = KeyType::kEcdsaP256;
  std::chrono::hours validity{24 * 365};
};

/// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign) valid from an hour ago.
/// Throws std::runtime_error carrying OpenSSL's error text when generation fails.
CertificateAndKey generate_ca(const std::string& common_name,
                              KeyType key_type = KeyType::kEcdsaP256,
                              std::chrono::hours validity = std::chrono::hours(24 * 365));

/// A leaf certificate signed by `ca` (as returned by generate_ca). Throws std::runtime_error
/// when `ca` cannot be parsed, an IP address is malformed, or OpenSSL fails.
CertificateAndKey issue_certificate(const CertificateAndKey& ca, const CertificateRequest& request);

}  // namespace rg::client
