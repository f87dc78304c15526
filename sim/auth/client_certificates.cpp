// Client certificates: requesting and checking them in the handshake, reading the subject.
#include "sim/auth/client_certificates.hpp"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <stdexcept>
#include <string_view>

namespace rg::sim::auth {
namespace {

/// The subject attribute the API server reads a user's uid from (AllowParsingUserUIDFromCertAuth,
/// beta and on by default since Kubernetes 1.34).
constexpr std::string_view kUidOid = "1.3.6.1.4.1.57683.2";
constexpr std::string_view kSessionContext = "kube-sim";

/// The handshake goes on whatever the chain is: the authenticator reads the verdict later
/// (SSL_get_verify_result), as Go's RequestClientCert leaves it to the x509 authenticator.
int accept_any_chain(int /*preverified*/, X509_STORE_CTX* /*chain*/) { return 1; }

/// Upper-case hex bytes separated by ':' (Go's columnSeparatedHex); "" for none.
std::string column_separated_hex(const ASN1_OCTET_STRING* bytes) {
  std::string out;
  if (bytes == nullptr) return out;
  const auto* data = ASN1_STRING_get0_data(bytes);
  for (int i = 0; i < ASN1_STRING_length(bytes); ++i)
    out += fmt::format("{}{:02X}", i == 0 ? "" : ":", data[i]);
  return out;
}

std::string serial_number(const X509* certificate) {
  BIGNUM* number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nullptr);
  if (number == nullptr) return "?";
  char* text = BN_bn2dec(number);
  std::string out = text == nullptr ? "?" : text;
  OPENSSL_free(text);
  BN_free(number);
  return out;
}

std::string fingerprint(const X509* certificate) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (X509_digest(certificate, EVP_sha256(), digest.data(), &length) != 1) return {};
  std::string out;
  for (unsigned int i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

std::string entry_text(const X509_NAME_ENTRY* entry) {
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
  if (length < 0) return {};
  std::string out(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
  OPENSSL_free(utf8);
  return out;
}

std::string object_id(const ASN1_OBJECT* object) {
  std::array<char, 80> text{};
  const int length = OBJ_obj2txt(text.data(), static_cast<int>(text.size()), object, 1);
  return length <= 0 ? std::string() : std::string(text.data());
}

}  // namespace

void request_client_certificates(ssl_ctx_st* context, const std::string& client_ca_pem) {
  BIO* bio = BIO_new_mem_buf(client_ca_pem.data(), static_cast<int>(client_ca_pem.size()));
  if (bio == nullptr) throw std::runtime_error("out of memory reading the client CA");
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  int loaded = 0;
  while (X509* certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, certificate);      // takes its own reference
    SSL_CTX_add_client_CA(context, certificate);  // copies the subject
    X509_free(certificate);
    ++loaded;
  }
  BIO_free(bio);
  ERR_clear_error();  // the end of the bundle reads as an error
  if (loaded == 0)
    throw std::runtime_error(
        "the client CA (--client-ca-file) holds no PEM certificate: give the CA bundle that "
        "signs client certificates");
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, accept_any_chain);
  SSL_CTX_set_purpose(context, X509_PURPOSE_SSL_CLIENT);
  // Needed to resume sessions once peers are verified (else OpenSSL refuses the resumption).
  SSL_CTX_set_session_id_context(context,
                                 reinterpret_cast<const unsigned char*>(kSessionContext.data()),
                                 static_cast<unsigned int>(kSessionContext.size()));
}

std::shared_ptr<const PeerCertificate> peer_certificate(ssl_st* connection) {
  X509* certificate = SSL_get0_peer_certificate(connection);
  if (certificate == nullptr) return nullptr;
  auto peer = std::make_shared<PeerCertificate>();
  const long result = SSL_get_verify_result(connection);
  if (result != X509_V_OK) peer->verify_error = X509_verify_cert_error_string(result);
  peer->identifier = fmt::format("SN={}, SKID={}, AKID={}", serial_number(certificate),
                                 column_separated_hex(X509_get0_subject_key_id(certificate)),
                                 column_separated_hex(X509_get0_authority_key_id(certificate)));
  peer->fingerprint = fingerprint(certificate);
  const X509_NAME* subject = X509_get_subject_name(certificate);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    const X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    const ASN1_OBJECT* type = X509_NAME_ENTRY_get_object(entry);
    switch (OBJ_obj2nid(type)) {
      case NID_commonName:
        peer->common_name = entry_text(entry);  // the last one wins, as in Go's pkix.Name
        break;
      case NID_organizationName:
        peer->organizations.push_back(entry_text(entry));
        break;
      default:
        if (object_id(type) == kUidOid) peer->uids.push_back(entry_text(entry));
    }
  }
  return peer;
}

}  // namespace rg::sim::auth
