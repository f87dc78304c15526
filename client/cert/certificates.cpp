// Certificate generation on OpenSSL 3's EVP and X509v3 APIs.
#include "client/cert/certificates.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

#include "client/cert/openssl_ptr.hpp"

namespace rg::client {
namespace {

// Throws with `what` and the queued OpenSSL errors, clearing the queue.
[[noreturn]] void fail(const std::string& what) {
  std::string text = "certificate generation: " + what;
  while (const unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    text += ": ";
    text += buffer;
  }
  throw std::runtime_error(text);
}

void check(int ok, const char* what) {
  if (ok != 1) fail(what);
}

EvpKeyPtr generate_key(KeyType type) {
  EvpKeyPtr key(type == KeyType::kRsa2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
  if (!key) fail("generating the private key");
  return key;
}

std::string to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert), "encoding the certificate");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr),
        "encoding the private key");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

BioPtr read_bio(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) fail("allocating a buffer");
  return bio;
}

// A certificate with a random 159-bit serial, the subject CN/O set, and the validity window.
X509Ptr new_certificate(EVP_PKEY* key, const std::string& common_name,
                        const std::vector<std::string>& organizations,
                        std::chrono::hours validity) {
  X509Ptr cert(X509_new());
  if (!cert) fail("allocating a certificate");
  check(X509_set_version(cert.get(), X509_VERSION_3), "setting the version");
  BignumPtr serial(BN_new());
  check(BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY), "choosing a serial");
  if (BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    fail("setting the serial");
  }
  // Valid from an hour ago so clocks slightly behind still accept it.
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(validity.count()) * 3600) ==
          nullptr) {
    fail("setting the validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& organization : organizations) {
    check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>(organization.c_str()),
                                     -1, -1, 0),
          "setting the organization");
  }
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                   -1, 0),
        "setting the common name");
  check(X509_set_pubkey(cert.get(), key), "setting the public key");
  return cert;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509ExtensionPtr extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
  if (!extension) fail("building extension " + std::string(OBJ_nid2sn(nid)) + "=" + value);
  check(X509_add_ext(cert, extension.get(), -1), "adding an extension");
}

void sign(X509* cert, X509* issuer, EVP_PKEY* issuer_key) {
  check(X509_set_issuer_name(cert, X509_get_subject_name(issuer)), "setting the issuer");
  if (X509_sign(cert, issuer_key, EVP_sha256()) == 0) fail("signing the certificate");
}

std::string subject_alt_names(const CertificateRequest& request) {
  std::string names;
  for (const auto& dns : request.dns_names) names += (names.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : request.ip_addresses) names += (names.empty() ? "IP:" : ",IP:") + ip;
  return names;
}

}  // namespace

CertificateAndKey generate_ca(const std::string& common_name, KeyType key_type,
                              std::chrono::hours validity) {
  ERR_clear_error();
  const EvpKeyPtr key = generate_key(key_type);
  const X509Ptr cert = new_certificate(key.get(), common_name, {}, validity);
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  sign(cert.get(), cert.get(), key.get());
  return {to_pem(cert.get()), to_pem(key.get())};
}

CertificateAndKey issue_certificate(const CertificateAndKey& ca,
                                    const CertificateRequest& request) {
  ERR_clear_error();
  const BioPtr ca_cert_bio = read_bio(ca.cert_pem);
  const X509Ptr ca_cert(PEM_read_bio_X509(ca_cert_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_cert) fail("reading the CA certificate PEM");
  const BioPtr ca_key_bio = read_bio(ca.key_pem);
  const EvpKeyPtr ca_key(PEM_read_bio_PrivateKey(ca_key_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_key) fail("reading the CA private key PEM");
  if (!request.server_auth && !request.client_auth) {
    fail("the request allows neither server_auth nor client_auth");
  }

  const EvpKeyPtr key = generate_key(request.key_type);
  const X509Ptr cert =
      new_certificate(key.get(), request.common_name, request.organizations, request.validity);
  add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca_cert.get(), NID_key_usage,
                request.key_type == KeyType::kRsa2048 ? "critical,digitalSignature,keyEncipherment"
                                                      : "critical,digitalSignature");
  std::string usages;
  if (request.server_auth) usages = "serverAuth";
  if (request.client_auth) usages += usages.empty() ? "clientAuth" : ",clientAuth";
  add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, usages);
  add_extension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always");
  if (const auto names = subject_alt_names(request); !names.empty()) {
    add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, names);
  }
  sign(cert.get(), ca_cert.get(), ca_key.get());
  return {to_pem(cert.get()), to_pem(key.get())};
}

}  // namespace rg::client
