// The secure metrics server's TLS: a server context from a PEM certificate chain and key, with
// TLS 1.2 as the minimum, only forward-secret AEAD ciphers for TLS 1.2 (TLS 1.3's suites are all
// strong), no renegotiation or compression, and ALPN answering http/1.1 only -- the operator's
// Beast server speaks no HTTP/2, which kubebuilder's scaffold also disables by default
// (--enable-http2=false, for the HTTP/2 Rapid Reset CVEs). And the self-signed certificate
// controller-runtime falls back to without one (pkg/metrics/server: CN localhost, 127.0.0.1,
// signed by a CA generated with it).
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

#include "client/cert/certificates.hpp"

namespace rg::op {

/// Throws std::invalid_argument naming `source` (e.g. the file) when the PEM cannot be used.
std::shared_ptr<boost::asio::ssl::context> make_metrics_tls_context(
    const client::CertificateAndKey& pair, const std::string& source);

/// A certificate for localhost and 127.0.0.1, signed by a CA made with it (OpenSSL 3).
client::CertificateAndKey self_signed_metrics_certificate();

}  // namespace rg::op
