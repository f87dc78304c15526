// A minimal blocking HTTPS client for kube-sim tests: one request per connection, verifying the
// server's certificate against a given CA and the name 127.0.0.1 (as kubectl does), optionally
// presenting a client certificate.
#pragma once

#include <boost/asio/ssl.hpp>

#include <string>
#include <utility>
#include <vector>

#include "client/cert/certificates.hpp"
#include "test/sim/http_client.hpp"

namespace rg::sim::test {

/// Throws boost::system::system_error when the handshake fails (e.g. an untrusted certificate).
inline Reply tls_call(unsigned short port, const std::string& ca_pem, const std::string& method,
                      const std::string& target, const std::string& body = "",
                      const std::vector<std::pair<std::string, std::string>>& headers = {},
                      const rg::client::CertificateAndKey& client_certificate = {}) {
  namespace ssl = boost::asio::ssl;
  boost::asio::io_context io;
  ssl::context context(ssl::context::tls_client);
  context.add_certificate_authority(boost::asio::buffer(ca_pem));
  context.set_verify_mode(ssl::verify_peer);
  if (!client_certificate.cert_pem.empty()) {
    context.use_certificate_chain(boost::asio::buffer(client_certificate.cert_pem));
    context.use_private_key(boost::asio::buffer(client_certificate.key_pem), ssl::context::pem);
  }
  ssl::stream<tcp::socket> stream(io, context);
  stream.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
  stream.next_layer().connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  stream.handshake(ssl::stream_base::client);
  return exchange(stream, method, target, body, headers);
}

}  // namespace rg::sim::test
