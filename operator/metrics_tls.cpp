// The metrics server's TLS context and self-signed certificate (see metrics_tls.hpp).
#include "operator/metrics_tls.hpp"

#include <openssl/ssl.h>

#include <boost/asio/buffer.hpp>
#include <boost/system/system_error.hpp>

#include <cstring>
#include <stdexcept>

namespace rg::op {
namespace {

namespace ssl = boost::asio::ssl;

/// TLS 1.2 suites: ECDHE key exchange and AEAD only (Mozilla's "intermediate" list).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

/// ALPN: http/1.1 when the client offers it; else no protocol is agreed (the client then speaks
/// HTTP/1.1 or gives up), never h2.
int select_http11(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_length,
                  const unsigned char* in, unsigned int in_length, void* /*arg*/) {
  static constexpr unsigned char kHttp11[] = {'h', 't', 't', 'p', '/', '1', '.', '1'};
  for (unsigned int i = 0; i < in_length;) {
    const unsigned int length = in[i];
    if (i + 1 + length > in_length) break;
    if (length == sizeof(kHttp11) && std::memcmp(in + i + 1, kHttp11, length) == 0) {
      *out = in + i + 1;
      *out_length = static_cast<unsigned char>(length);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + length;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

std::shared_ptr<ssl::context> make_metrics_tls_context(const client::CertificateAndKey& pair,
                                                       const std::string& source) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                       ssl::context::single_dh_use | SSL_OP_NO_COMPRESSION |
                       SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX* native = context->native_handle();
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1)
    throw std::runtime_error("OpenSSL refused the metrics server's TLS settings");
  SSL_CTX_set_alpn_select_cb(native, select_http11, nullptr);
  try {
    context->use_certificate_chain(boost::asio::buffer(pair.cert_pem));
    context->use_private_key(boost::asio::buffer(pair.key_pem), ssl::context::pem);
  } catch (const boost::system::system_error& error) {
    throw std::invalid_argument("metrics TLS: cannot use the certificate and key from " + source +
                                ": " + error.code().message() +
                                " (expected a PEM certificate chain and its PEM private key)");
  }
  if (SSL_CTX_check_private_key(native) != 1)
    throw std::invalid_argument("metrics TLS: the private key from " + source +
                                " does not match its certificate");
  return context;
}

client::CertificateAndKey self_signed_metrics_certificate() {
  const auto ca = client::generate_ca("localhost-ca");
  client::CertificateRequest request;
  request.common_name = "localhost";
  request.dns_names = {"localhost"};
  request.ip_addresses = {"127.0.0.1"};
  auto leaf = client::issue_certificate(ca, request);
  leaf.cert_pem += ca.cert_pem;  // the chain, as certutil's fixture writes it
  return leaf;
}

}  // namespace rg::op
