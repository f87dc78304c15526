// Authenticator: who a request is, from its client certificate (verified against the client CA:
// CN is the user, O the groups) or its bearer token -- the administrator's static token or a
// ServiceAccount token minted by the TokenRequest API (valid while unexpired, for one of the API
// audiences, and while its ServiceAccount -- and the object it is bound to -- exists with the
// same uid).
#pragma once

#include <optional>
#include <string>

#include "sim/auth/auth_options.hpp"
#include "sim/auth/service_account_tokens.hpp"
#include "sim/auth/user_info.hpp"
#include "sim/http_types.hpp"
#include "sim/object_store.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim::auth {

/// What authenticating a bearer token for some audiences found (a TokenReview's status).
struct TokenAuthentication {
  std::optional<UserInfo> user;
  std::vector<std::string> audiences;  ///< the token's audiences among those asked for
  /// Why it failed, as the API server words status.error: "invalid bearer token", or the union
  /// authenticator's "[invalid bearer token, <reason>]" when a token authenticator gave one.
  std::string error;
};

class Authenticator {
 public:
  /// `options.admin_token` empty: a random token is generated.
  Authenticator(const Store& store, const ResourceTable& table, const AuthOptions& options);

  const std::string& admin_token() const { return admin_token_; }
  const ServiceAccountTokens& tokens() const { return tokens_; }

  const std::vector<std::string>& api_audiences() const { return audiences_; }

  /// The user a bearer token authenticates as, or nullopt.
  std::optional<UserInfo> authenticate_token(std::string_view token) const;

  /// Authenticates a bearer token meant for `audiences` (empty: the API audiences), as the
  /// TokenReview API does.
  TokenAuthentication review_token(std::string_view token,
                                   std::vector<std::string> audiences) const;

  /// The user a client certificate authenticates as; nullopt when it names no user (empty CN).
  /// Throws std::invalid_argument saying why when it does not verify or carries several uids.
  static std::optional<UserInfo> authenticate_certificate(const PeerCertificate& certificate);

  /// The user of a request: its client certificate's, else its bearer token's (the API server's
  /// order), else system:anonymous when anonymous requests are allowed and no credential failed.
  /// Throws 401 Unauthorized otherwise.
  UserInfo authenticate(const HttpRequest& request) const;

 private:
  const Store& store_;
  const ResourceTable& table_;
  const ResourceType& service_accounts_;
  std::string admin_token_;
  std::vector<std::string> audiences_;
  bool anonymous_;
  ServiceAccountTokens tokens_;
};

}  // namespace rg::sim::auth
