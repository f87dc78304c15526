// key_pair_problem: parsing the certificate and key with OpenSSL 3 and matching them.
#include "client/config/key_pair.hpp"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <climits>
#include <memory>

#include "client/cert/openssl_ptr.hpp"

namespace rg::client {
namespace {

BioPtr memory_bio(std::string_view pem) {
  const int size = pem.size() > INT_MAX ? INT_MAX : static_cast<int>(pem.size());
  return BioPtr(BIO_new_mem_buf(pem.data(), size));
}

/// OpenSSL's reason for the most recent failure (and clears its error queue).
std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "no PEM block found";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "unknown OpenSSL error";
}

/// Refuses encrypted keys instead of letting OpenSSL prompt on the terminal for a passphrase.
int no_passphrase(char* /*buffer*/, int /*size*/, int /*writing*/, void* /*user*/) { return -1; }

}  // namespace

std::optional<std::string> key_pair_problem(std::string_view cert_pem, std::string_view key_pem,
                                            std::string_view cert_name, std::string_view key_name) {
  // OpenSSL's reasons for a missing block ("no start line", "unsupported") say little.
  if (cert_pem.find("-----BEGIN CERTIFICATE-----") == std::string_view::npos) {
    return fmt::format("{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)", cert_name);
  }
  if (key_pem.find("PRIVATE KEY-----") == std::string_view::npos) {
    return fmt::format("{} holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)", key_name);
  }
  ERR_clear_error();
  auto cert_bio = memory_bio(cert_pem);
  X509Ptr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, no_passphrase, nullptr));
  if (!cert) {
    return fmt::format("{} is not a valid PEM certificate ({})", cert_name, openssl_reason());
  }
  auto key_bio = memory_bio(key_pem);
  EvpKeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    return fmt::format("{} is not a valid PEM private key ({})", key_name, openssl_reason());
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return fmt::format("{} is not the private key of the certificate in {}", key_name, cert_name);
  }
  return std::nullopt;
}

}  // namespace rg::client
