// Authenticator: client certificates (apiserver's x509 authenticator), bearer tokens (its
// bearertoken + tokenfile + serviceaccount authenticators, in that order), then anonymous.
#include "sim/auth/authenticator.hpp"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "sim/auth/attributes.hpp"
#include "sim/auth/required_type.hpp"

namespace rg::sim::auth {
namespace {

bool equal_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Authenticator::Authenticator(const Store& store, const ResourceTable& table,
                             const AuthOptions& options)
    : store_(store),
      table_(table),
      service_accounts_(required_type(table, "", "serviceaccounts")),
      admin_token_(options.admin_token.empty() ? random_token(32) : options.admin_token),
      audiences_(options.api_audiences),
      anonymous_(options.anonymous) {}

std::optional<UserInfo> Authenticator::authenticate_token(std::string_view token) const {
  return review_token(token, audiences_).user;
}

TokenAuthentication Authenticator::review_token(std::string_view token,
                                                std::vector<std::string> audiences) const {
  if (audiences.empty()) audiences = audiences_;
  const auto among = [&](const std::vector<std::string>& offered) {
    std::vector<std::string> both;
    for (const auto& audience : audiences)
      if (std::find(offered.begin(), offered.end(), audience) != offered.end())
        both.push_back(audience);
    return both;
  };
  const auto refused = [](std::string_view reason) {
    return TokenAuthentication{std::nullopt, {}, fmt::format("[invalid bearer token, {}]", reason)};
  };
  // The static token is audience-agnostic: it is good for the API audiences only
  // (apiserver's WrapAudienceAgnosticToken).
  if (equal_constant_time(token, admin_token_)) {
    auto matched = among(audiences_);
    if (matched.empty()) return {std::nullopt, {}, "invalid bearer token"};
    return {admin_user(), std::move(matched), {}};
  }
  auto verdict = tokens_.verify(token, std::chrono::system_clock::now());
  if (!verdict.claims) {
    if (verdict.error.empty()) return {std::nullopt, {}, "invalid bearer token"};
    return refused(verdict.error);
  }
  const TokenClaims& claims = *verdict.claims;
  auto matched = among(claims.audiences);
  if (matched.empty()) {  // pkg/serviceaccount/jwt.go's audience check
    const auto quoted = [](const std::vector<std::string>& items) {
      std::vector<std::string> out;
      for (const auto& item : items) out.push_back(fmt::format("\"{}\"", item));
      return fmt::format("[{}]", fmt::join(out, " "));
    };
    return refused(fmt::format("token audiences {} is invalid for the target audiences {}",
                               quoted(claims.audiences), quoted(audiences)));
  }
  // pkg/serviceaccount/claims.go's validator: the account, and the object the token is bound
  // to, must still exist with the uids the token names.
  auto account = store_.get(service_accounts_, claims.namespace_, claims.service_account);
  if (!account)
    return refused(fmt::format("serviceaccounts \"{}\" not found", claims.service_account));
  if (account->uid != claims.service_account_uid)
    return refused(fmt::format("service account UID ({}) does not match claim ({})", account->uid,
                               claims.service_account_uid));
  if (const auto& bound = claims.bound) {
    const auto* type = table_.find_kind("", bound->kind);
    const auto object =
        type == nullptr ? nullptr
                        : store_.get(*type, type->namespaced ? claims.namespace_ : "", bound->name);
    if (!object)
      return refused(fmt::format("{} \"{}\" not found",
                                 type == nullptr ? bound->kind : type->resource, bound->name));
    if (object->uid != bound->uid)
      return refused(fmt::format("{} UID ({}) does not match claim ({})", type->kind, object->uid,
                                 bound->uid));
  }
  return {
      service_account_user(claims.namespace_, claims.service_account, claims.service_account_uid),
      std::move(matched),
      {}};
}

std::optional<UserInfo> Authenticator::authenticate_certificate(
    const PeerCertificate& certificate) {
  if (!certificate.verify_error.empty())
    throw std::invalid_argument(fmt::format("verifying certificate {} failed: {}",
                                            certificate.identifier, certificate.verify_error));
  if (certificate.common_name.empty()) return std::nullopt;
  UserInfo user{certificate.common_name, "", certificate.organizations, {}};
  if (certificate.uids.size() > 1)
    throw std::invalid_argument(
        fmt::format("expected 1 UID, but found multiple: [{}]", fmt::join(certificate.uids, " ")));
  if (certificate.uids.size() == 1) {
    if (certificate.uids.front().empty())
      throw std::invalid_argument("UID cannot be an empty string");
    user.uid = certificate.uids.front();
  }
  user.extra[std::string(kCredentialIdKey)] = {"X509SHA256=" + certificate.fingerprint};
  // apiserver's AuthenticatedGroupAdder.
  if (!user.in_group(kAllAuthenticated)) user.groups.emplace_back(kAllAuthenticated);
  return user;
}

UserInfo Authenticator::authenticate(const HttpRequest& request) const {
  // As the API server's union of authenticators: the first that knows the user wins; a credential
  // that failed, when none succeeded, is 401 even where anonymous requests are allowed.
  bool failed = false;
  if (const auto& certificate = request.peer_certificate) {
    try {
      if (auto user = authenticate_certificate(*certificate)) return *user;
    } catch (const std::invalid_argument& error) {
      spdlog::debug("kube-sim: unable to authenticate the request: {}", error.what());
      failed = true;
    }
  }
  // "Bearer <token>", the scheme case-insensitive (apiserver's bearertoken authenticator); other
  // schemes and empty tokens are no credential.
  const auto header = request.header("authorization");
  const auto space = header.find(' ');
  std::string scheme(header.substr(0, space));
  for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view token = space == std::string_view::npos ? "" : header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  if (scheme == "bearer" && !token.empty()) {
    if (auto user = authenticate_token(token)) return *user;
    failed = true;
  }
  if (anonymous_ && !failed) return anonymous_user();
  throw unauthorized();
}

}  // namespace rg::sim::auth
