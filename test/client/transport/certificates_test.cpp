// Tests of the certificate generator: the chain verifies with OpenSSL and carries the SANs.
#include "client/cert/certificates.hpp"

#include <doctest/doctest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

using namespace rg::client;

namespace {

std::unique_ptr<X509, decltype(&X509_free)> parse(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return {cert, X509_free};
}

// OpenSSL's verdict on `leaf` against the CA, for the given purpose.
int verify(const std::string& ca_pem, const std::string& leaf_pem, int purpose) {
  auto ca = parse(ca_pem);
  auto leaf = parse(leaf_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca.get());
  X509_STORE_CTX* context = X509_STORE_CTX_new();
  X509_STORE_CTX_init(context, store, leaf.get(), nullptr);
  X509_STORE_CTX_set_purpose(context, purpose);
  const int ok = X509_verify_cert(context);
  const int error = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context);
  X509_STORE_CTX_free(context);
  X509_STORE_free(store);
  return error;
}

}  // namespace

TEST_CASE("certificates: a leaf signed by the generated CA verifies, with its SANs") {
  for (const auto key_type : {KeyType::kEcdsaP256, KeyType::kRsa2048}) {
    const auto ca = generate_ca("test-ca", key_type);
    CertificateRequest request;
    request.common_name = "kube-apiserver";
    request.dns_names = {"localhost", "kubernetes.default.svc"};
    request.ip_addresses = {"127.0.0.1", "::1"};
    request.key_type = key_type;
    const auto leaf = issue_certificate(ca, request);
    CHECK(leaf.key_pem.find("PRIVATE KEY") != std::string::npos);
    CHECK(verify(ca.cert_pem, leaf.cert_pem, X509_PURPOSE_SSL_SERVER) == X509_V_OK);
    // serverAuth only: not usable as a client certificate.
    CHECK(verify(ca.cert_pem, leaf.cert_pem, X509_PURPOSE_SSL_CLIENT) != X509_V_OK);

    auto cert = parse(leaf.cert_pem);
    CHECK(X509_check_host(cert.get(), "kubernetes.default.svc", 0, 0, nullptr) == 1);
    CHECK(X509_check_host(cert.get(), "other.example", 0, 0, nullptr) == 0);
    CHECK(X509_check_ip_asc(cert.get(), "127.0.0.1", 0) == 1);
    CHECK(X509_check_ip_asc(cert.get(), "::1", 0) == 1);
    CHECK(X509_check_ip_asc(cert.get(), "10.0.0.1", 0) == 0);
  }
}

TEST_CASE("certificates: client certificates carry their groups and verify for clientAuth") {
  const auto ca = generate_ca("client-ca");
  CertificateRequest request;
  request.common_name = "alice";
  request.organizations = {"system:masters"};
  request.server_auth = false;
  request.client_auth = true;
  const auto leaf = issue_certificate(ca, request);
  CHECK(verify(ca.cert_pem, leaf.cert_pem, X509_PURPOSE_SSL_CLIENT) == X509_V_OK);
  auto cert = parse(leaf.cert_pem);
  char text[256];
  X509_NAME_oneline(X509_get_subject_name(cert.get()), text, sizeof text);
  CHECK(std::string(text) == "/O=system:masters/CN=alice");
}

TEST_CASE("certificates: another CA does not verify the leaf; bad input is reported") {
  const auto ca = generate_ca("ca-1");
  const auto other = generate_ca("ca-2");
  CertificateRequest request;
  request.common_name = "server";
  request.dns_names = {"localhost"};
  const auto leaf = issue_certificate(ca, request);
  CHECK(verify(other.cert_pem, leaf.cert_pem, X509_PURPOSE_SSL_SERVER) != X509_V_OK);

  request.ip_addresses = {"not-an-ip"};
  CHECK_THROWS_WITH_AS(issue_certificate(ca, request), doctest::Contains("subjectAltName"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(issue_certificate({"garbage", "garbage"}, CertificateRequest{}),
                       doctest::Contains("CA certificate"), std::runtime_error);
}
