// AuthFilter: kube-sim's authentication and authorization in front of the API handlers (the
// ApiServer's RequestHook): bearer token -> user (401 without valid credentials), impersonation
// headers -> the user acted as, RBAC -> 403 with the API server's message, and the endpoints
// answered from the user itself: TokenRequest and the self reviews.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <optional>

#include "sim/api_server.hpp"
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

  /// Authenticates and authorizes `request`; returns the answer of an endpoint served here, or
  /// nullopt to pass the request on. Throws ApiError (401, 403, and the endpoints' errors).
  std::optional<HttpResponse> handle(const HttpRequest& request) const;

  /// The hook to run for requests that pass and are not served here (faults, admin endpoint).
  void set_next(RequestHook next) { next_ = std::move(next); }

  /// The RequestHook: handle(), sending what it answers, else the next hook. True when answered.
  boost::asio::awaitable<bool> intercept(HttpRequest& request, ResponseStream& stream);

 private:
  AuthOptions options_;
  Authenticator authenticator_;
  RbacAuthorizer authorizer_;
  TokenRequests token_requests_;
  RequestHook next_;
};

}  // namespace rg::sim::auth
