// Building the client-side OpenSSL context.
#include "client/transport/tls_context.hpp"

#include <boost/asio/buffer.hpp>

#include <stdexcept>

namespace rg::client {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> make_tls_context(const TlsConfig& tls) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  const auto load = [&](const char* what, auto&& step) {
    try {
      step();
    } catch (const boost::system::system_error& e) {
      throw std::invalid_argument(std::string("TLS configuration: cannot load the ") + what + ": " +
                                  e.code().message() + " (expected PEM)");
    }
  };
  if (!tls.ca_pem.empty()) {
    load("certificate authority (ca_pem)",
         [&] { context->add_certificate_authority(boost::asio::buffer(tls.ca_pem)); });
  } else {
    context->set_default_verify_paths();
  }
  if (tls.client_cert_pem.empty() != tls.client_key_pem.empty()) {
    throw std::invalid_argument(
        "TLS configuration: a client certificate needs both client_cert_pem and client_key_pem");
  }
  if (!tls.client_cert_pem.empty()) {
    load("client certificate (client_cert_pem)",
         [&] { context->use_certificate_chain(boost::asio::buffer(tls.client_cert_pem)); });
    load("client key (client_key_pem)", [&] {
      context->use_private_key(boost::asio::buffer(tls.client_key_pem), ssl::context::pem);
    });
  }
  context->set_verify_mode(tls.insecure_skip_verify ? ssl::verify_none : ssl::verify_peer);
  return context;
}

}  // namespace rg::client
