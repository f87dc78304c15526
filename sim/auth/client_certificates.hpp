// Client certificates on kube-sim's TLS side, as kube-apiserver's --client-ca-file sets them up:
// the handshake requests (does not require) a certificate, advertising the client CA; the chain is
// checked against that CA for client use once per connection, and what the peer presented is
// handed to the authenticator (PeerCertificate), which takes CN as the user and O as the groups.
#pragma once

#include <memory>
#include <string>

#include "sim/http_types.hpp"

struct ssl_st;
struct ssl_ctx_st;

namespace rg::sim::auth {

/// Makes `context` request client certificates and check them against the PEM bundle
/// `client_ca_pem` (one or more CA certificates). Throws std::runtime_error when the bundle holds
/// no certificate.
void request_client_certificates(ssl_ctx_st* context, const std::string& client_ca_pem);

/// What the peer of a finished handshake presented, or null when it sent no certificate.
std::shared_ptr<const PeerCertificate> peer_certificate(ssl_st* connection);

}  // namespace rg::sim::auth
