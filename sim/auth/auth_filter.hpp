// AuthFilter: kube-sim's authentication and authorization in front of the API handlers (the
// ApiServer's RequestHook): bearer token -> user (401 without valid credentials), impersonation
// headers -> the user acted as, RBAC -> 403 with the API server's message, and the endpoints
// answered from the user itself: TokenRequest and the self reviews, and the delegated reviews
// (TokenReview, SubjectAccessReview).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <optional>

#include "sim/api_server.hpp"
#include "sim/auth/attributes.hpp"
#include "sim/auth/auth_options.hpp"
#include "sim/auth/authenticator.hpp"
#include "sim/auth/rbac_authorizer.hpp"
#include "sim/auth/token_requests.hpp"
#include "sim/http_types.hpp"
#include "sim/registry.hpp"

namespace rg::sim::auth {

class AuthFilter {
 public:
  /// With `options.enabled`, also creates the default RBAC policy (bootstrap_policy.hpp).
  AuthFilter(Registry& registry, AuthOptions options);

  const AuthOptions& options() const { return options_; }
  const Authenticator& authenticator() const { return authenticator_; }
  const RbacAuthorizer& authorizer() const { return authorizer_; }
  const TokenRequests& token_requests() const { return token_requests_; }

  /// The hook to run for every request that passes (faults, admin endpoint), before the
  /// endpoints served here answer.
  void set_next(RequestHook next) { next_ = std::move(next); }

  /// The RequestHook: authenticates and authorizes (throwing 401/403), runs the next hook, then
  /// answers the endpoints served here. True when answered.
  boost::asio::awaitable<bool> intercept(HttpRequest& request, ResponseStream& stream);

 private:
  /// Authenticates and authorizes `request` (throws ApiError 401/403); the attributes of an
  /// endpoint served here, or nullopt to pass the request on.
  std::optional<Attributes> admit(HttpRequest& request) const;
  /// Answers an endpoint admit() accepted. Throws ApiError for the endpoints' errors.
  HttpResponse serve(const HttpRequest& request, const Attributes& attributes) const;

  AuthOptions options_;
  Authenticator authenticator_;
  RbacAuthorizer authorizer_;
  TokenRequests token_requests_;
  RequestHook next_;
};

}  // namespace rg::sim::auth
