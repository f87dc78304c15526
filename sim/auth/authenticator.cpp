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
  if (equal_constant_time(token, admin_token_)) return admin_user();
  auto claims = tokens_.verify(token, std::chrono::system_clock::now());
  if (!claims) return std::nullopt;
  const bool audience_ok = std::any_of(
      claims->audiences.begin(), claims->audiences.end(), [&](const std::string& audience) {
        return std::find(audiences_.begin(), audiences_.end(), audience) != audiences_.end();
      });
  if (!audience_ok) return std::nullopt;
  auto account = store_.get(service_accounts_, claims->namespace_, claims->service_account);
  if (!account || account->uid != claims->service_account_uid) return std::nullopt;
  if (const auto& bound = claims->bound) {
    const auto* type = table_.find_kind("", bound->kind);
    const auto object =
        type == nullptr
            ? nullptr
            : store_.get(*type, type->namespaced ? claims->namespace_ : "", bound->name);
    if (!object || object->uid != bound->uid) return std::nullopt;
  }
  return service_account_user(claims->namespace_, claims->service_account,
                              claims->service_account_uid);
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
