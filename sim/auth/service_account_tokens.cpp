// ServiceAccountTokens: HS256 JWTs with the API server's service account claims.
#include "sim/auth/service_account_tokens.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <boost/json.hpp>

#include <cctype>
#include <stdexcept>
#include <utility>

#include "sim/base64url.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

std::string random_bytes(std::size_t count) {
  std::string bytes(count, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(count)) != 1)
    throw std::runtime_error("OpenSSL could not generate random bytes");
  return bytes;
}

std::string random_uuid() {
  auto bytes = random_bytes(16);
  bytes[6] = static_cast<char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<char>((bytes[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    auto byte = static_cast<unsigned char>(bytes[i]);
    text.push_back(kHex[byte >> 4]);
    text.push_back(kHex[byte & 0x0f]);
  }
  return text;
}

std::int64_t unix_seconds(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

}  // namespace

std::string random_token(std::size_t bytes) { return base64url_encode(random_bytes(bytes)); }

ServiceAccountTokens::ServiceAccountTokens() : key_(random_bytes(32)) {}

std::string ServiceAccountTokens::sign(std::string_view signing_input) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac,
           &length) == nullptr)
    throw std::runtime_error("OpenSSL could not compute the token signature");
  return base64url_encode(std::string_view(reinterpret_cast<const char*>(mac), length));
}

IssuedToken ServiceAccountTokens::issue(const TokenClaims& claims,
                                        std::chrono::system_clock::time_point now) const {
  json::array audiences;
  for (const auto& audience : claims.audiences) audiences.emplace_back(audience);
  json::object kubernetes{{"namespace", claims.namespace_},
                          {"serviceaccount", json::object{{"name", claims.service_account},
                                                          {"uid", claims.service_account_uid}}}};
  if (claims.bound) {
    // The API server's claim names: "pod", "secret", "node".
    std::string key = claims.bound->kind;
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    kubernetes[key] = json::object{{"name", claims.bound->name}, {"uid", claims.bound->uid}};
  }
  json::object payload{
      {"aud", std::move(audiences)},
      {"exp", unix_seconds(claims.expires)},
      {"iat", unix_seconds(now)},
      {"iss", kIssuer},
      {"jti", random_uuid()},
      {"kubernetes.io", std::move(kubernetes)},
      {"nbf", unix_seconds(now)},
      {"sub", "system:serviceaccount:" + claims.namespace_ + ":" + claims.service_account}};
  std::string input = base64url_encode(R"({"alg":"HS256","kid":"kube-sim","typ":"JWT"})") + "." +
                      base64url_encode(json::serialize(payload));
  std::string signature = sign(input);
  return {input + "." + signature, claims.expires, claims.service_account_uid};
}

TokenVerdict ServiceAccountTokens::verify(std::string_view token,
                                          std::chrono::system_clock::time_point now) const {
  const auto last_dot = token.rfind('.');
  const auto first_dot = token.find('.');
  if (first_dot == std::string_view::npos || first_dot == last_dot) return {};
  const auto input = token.substr(0, last_dot);
  const auto signature = token.substr(last_dot + 1);
  const std::string expected = sign(input);
  if (expected.size() != signature.size() ||
      CRYPTO_memcmp(expected.data(), signature.data(), expected.size()) != 0)
    return {};
  auto payload_text = base64url_decode(input.substr(first_dot + 1));
  if (!payload_text) return {};
  boost::system::error_code ec;
  auto payload = json::parse(*payload_text, ec);
  if (ec || !payload.is_object()) return {};
  const auto& claims = payload.get_object();
  const auto* exp = claims.if_contains("exp");
  const auto* kubernetes = claims.if_contains("kubernetes.io");
  if (exp == nullptr || !exp->is_int64() || kubernetes == nullptr || !kubernetes->is_object())
    return {};
  TokenClaims result;
  result.expires = std::chrono::system_clock::time_point(std::chrono::seconds(exp->get_int64()));
  if (result.expires <= now) return {std::nullopt, "service account token has expired"};
  const auto* ns = find_string(kubernetes->get_object(), "namespace");
  const auto* sa = kubernetes->get_object().if_contains("serviceaccount");
  if (ns == nullptr || sa == nullptr || !sa->is_object()) return {};
  const auto* name = find_string(sa->get_object(), "name");
  const auto* uid = find_string(sa->get_object(), "uid");
  if (name == nullptr || uid == nullptr) return {};
  result.namespace_ = std::string(*ns);
  result.service_account = std::string(*name);
  result.service_account_uid = std::string(*uid);
  for (auto [key, kind] : {std::pair{"pod", "Pod"}, {"secret", "Secret"}, {"node", "Node"}}) {
    const auto* bound = kubernetes->get_object().if_contains(key);
    if (bound == nullptr || !bound->is_object()) continue;
    const auto* bound_name = find_string(bound->get_object(), "name");
    const auto* bound_uid = find_string(bound->get_object(), "uid");
    if (bound_name == nullptr || bound_uid == nullptr) return {};
    result.bound = BoundObject{kind, std::string(*bound_name), std::string(*bound_uid)};
  }
  if (const auto* aud = claims.if_contains("aud"); aud != nullptr && aud->is_array())
    for (const auto& audience : aud->get_array())
      if (audience.is_string()) result.audiences.emplace_back(audience.get_string());
  return {std::move(result), {}};
}

}  // namespace rg::sim::auth
