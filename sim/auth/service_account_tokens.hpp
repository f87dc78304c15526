// ServiceAccountTokens: mints and verifies the ServiceAccount tokens of the TokenRequest API.
// Tokens are JWTs shaped like the API server's (iss, sub, aud, exp, iat, nbf, jti and the
// kubernetes.io claim naming the namespace and ServiceAccount), signed with HS256 under a key
// generated at start, so they are valid for this kube-sim process only.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::sim::auth {

/// The object a token is bound to (TokenRequest boundObjectRef): valid only while it exists.
struct BoundObject {
  std::string kind;  ///< "Pod", "Secret" or "Node"
  std::string name;
  std::string uid;
};

/// What a token says about its holder.
struct TokenClaims {
  std::string namespace_;
  std::string service_account;
  std::string service_account_uid;
  std::vector<std::string> audiences;
  std::chrono::system_clock::time_point expires;
  std::optional<BoundObject> bound;
};

/// What verifying a token found: its claims, or why it is refused. Both empty: not a token this
/// issuer signed (the API server's JWT authenticator then says nothing and the next one tries).
struct TokenVerdict {
  std::optional<TokenClaims> claims;
  std::string error;  ///< "service account token has expired" (pkg/serviceaccount/claims.go)
};

struct IssuedToken {
  std::string token;
  std::chrono::system_clock::time_point expires;
  std::string service_account_uid;
};

class ServiceAccountTokens {
 public:
  /// The issuer every kubeadm cluster uses (also the default API audience).
  static constexpr std::string_view kIssuer = "https://kubernetes.default.svc.cluster.local";

  ServiceAccountTokens();  ///< a random signing key

  IssuedToken issue(const TokenClaims& claims, std::chrono::system_clock::time_point now) const;

  /// The claims of a token this object issued, if its signature is right and it has not expired
  /// at `now`; an error when it has expired; neither when it is not ours (not a JWT, another key).
  TokenVerdict verify(std::string_view token, std::chrono::system_clock::time_point now) const;

 private:
  std::string sign(std::string_view signing_input) const;
  std::string key_;
};

/// `bytes` random bytes from OpenSSL, base64url encoded without padding (bearer tokens).
std::string random_token(std::size_t bytes);

}  // namespace rg::sim::auth
