// ServingCertificate generation, loading, and the server TLS context.
#include "sim/auth/serving_certificate.hpp"

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "client/cert/certificates.hpp"
#include "sim/auth/client_certificates.hpp"

namespace rg::sim::auth {
namespace {

namespace ssl = boost::asio::ssl;

std::string read_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot read the {} {}: check the path and its permissions", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_specific(const boost::asio::ip::address& address) {
  return !address.is_unspecified() && !address.is_loopback();
}

}  // namespace

ServingCertificate generate_serving_certificate(const std::string& address) {
  auto ca = client::generate_ca("kube-sim-ca");
  client::CertificateRequest request;
  request.common_name = "kube-apiserver";
  request.dns_names = {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                       "kubernetes.default.svc.cluster.local"};
  request.ip_addresses = {"127.0.0.1", "::1"};
  boost::system::error_code ec;
  auto parsed = boost::asio::ip::make_address(address, ec);
  if (!ec && is_specific(parsed))
    request.ip_addresses.push_back(parsed.to_string());
  else if (ec && !address.empty())
    request.dns_names.push_back(address);
  auto serving = client::issue_certificate(ca, request);
  return {ca.cert_pem, serving.cert_pem, serving.key_pem, ca.key_pem};
}

ServingCertificate load_serving_certificate(const std::string& cert_file,
                                            const std::string& key_file) {
  ServingCertificate certificate;
  certificate.cert_pem = read_file(cert_file, "TLS certificate (--tls-cert-file)");
  certificate.key_pem = read_file(key_file, "TLS private key (--tls-private-key-file)");
  certificate.ca_pem = certificate.cert_pem;
  return certificate;
}

std::string load_client_ca(const std::string& client_ca_file) {
  return read_file(client_ca_file, "client CA (--client-ca-file)");
}

std::shared_ptr<ssl::context> make_server_tls_context(const ServingCertificate& certificate,
                                                      const std::string& client_ca_pem) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                       ssl::context::single_dh_use);
  // The key first: loading it after the certificate would report a mismatch as a bad key.
  boost::system::error_code ec;
  context->use_private_key(boost::asio::buffer(certificate.key_pem), ssl::context::pem, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("the TLS private key is not a PEM private key: {}", ec.message()));
  context->use_certificate_chain(boost::asio::buffer(certificate.cert_pem), ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("the TLS certificate is not a PEM certificate chain: {}", ec.message()));
  if (SSL_CTX_check_private_key(context->native_handle()) != 1)
    throw std::runtime_error("the TLS private key does not match the TLS certificate");
  if (!client_ca_pem.empty()) request_client_certificates(context->native_handle(), client_ca_pem);
  return context;
}

}  // namespace rg::sim::auth
