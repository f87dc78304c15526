// The "who am I, what may I do" endpoints answered from the request's own user:
// SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.k8s.io/v1, `kubectl auth
// can-i` and `can-i --list`) from the same RBAC policy that authorizes requests, and
// SelfSubjectReview (authentication.k8s.io/v1, `kubectl auth whoami`).
#pragma once

#include "sim/auth/rbac_authorizer.hpp"
#include "sim/auth/user_info.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: 201 with status.allowed (and
/// the RBAC reason). 422 unless exactly one of resourceAttributes / nonResourceAttributes is set.
HttpResponse serve_self_subject_access_review(const HttpRequest& request, const UserInfo& user,
                                              const RbacAuthorizer& authorizer);

/// POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews: 201 with the rules granted in
/// spec.namespace (and cluster-wide): status.resourceRules, nonResourceRules, incomplete (and
/// evaluationError when a binding names a missing role).
HttpResponse serve_self_subject_rules_review(const HttpRequest& request, const UserInfo& user,
                                             const RbacAuthorizer& authorizer);

/// POST /apis/authentication.k8s.io/v1/selfsubjectreviews: 201 with status.userInfo.
HttpResponse serve_self_subject_review(const HttpRequest& request, const UserInfo& user);

}  // namespace rg::sim::auth
