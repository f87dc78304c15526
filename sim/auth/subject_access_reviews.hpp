// The SubjectAccessReview API (authorization.k8s.io/v1, POST
// /apis/authorization.k8s.io/v1/subjectaccessreviews): a delegating server asks whether some
// user -- named in the spec, typically from a TokenReview -- may do something, resource or
// non-resource URL. Decided by the same RBAC policy that authorizes kube-sim's own requests.
#pragma once

#include "sim/auth/rbac_authorizer.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// 201 with status.allowed (and the RBAC reason) -- always allowed when `rbac` is off, as
/// --authorization-mode AlwaysAllow decides. 422 unless exactly one of resourceAttributes /
/// nonResourceAttributes is set, a user or a group is named and metadata is empty.
HttpResponse serve_subject_access_review(const HttpRequest& request,
                                         const RbacAuthorizer& authorizer, bool rbac);

}  // namespace rg::sim::auth
