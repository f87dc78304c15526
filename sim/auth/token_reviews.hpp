// The TokenReview API (authentication.k8s.io/v1, POST /apis/authentication.k8s.io/v1/tokenreviews):
// a delegating server -- an operator's secure /metrics, kube-rbac-proxy -- asks who a bearer
// token belongs to. Answered from the Authenticator, never stored.
#pragma once

#include "sim/auth/authenticator.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// 201 with the review: status.authenticated, user and audiences for a good token; for a bad,
/// expired or unbound one status.error and no authenticated (still 201, as the API server does).
/// 400 without spec.token.
HttpResponse serve_token_review(const HttpRequest& request, const Authenticator& authenticator);

}  // namespace rg::sim::auth
