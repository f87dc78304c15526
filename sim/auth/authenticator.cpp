// Authenticator: bearer tokens (apiserver's bearertoken + tokenfile + serviceaccount
// authenticators, in that order), then anonymous.
#include "sim/auth/authenticator.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

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

UserInfo Authenticator::authenticate(const HttpRequest& request) const {
  const auto header = request.header("authorization");
  if (header.empty()) {
    if (anonymous_) return anonymous_user();
    throw unauthorized();
  }
  // "Bearer <token>", the scheme case-insensitive (apiserver's bearertoken authenticator).
  const auto space = header.find(' ');
  std::string scheme(header.substr(0, space));
  for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer" || space == std::string_view::npos) throw unauthorized();
  auto token = header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  if (token.empty()) throw unauthorized();
  auto user = authenticate_token(token);
  if (!user) throw unauthorized();
  return *user;
}

}  // namespace rg::sim::auth
