// Impersonation (`kubectl --as USER --as-group GROUP`): the Impersonate-User, Impersonate-Group
// and Impersonate-Uid headers make a request act as another user, once the authenticated user
// is allowed the `impersonate` verb on users, groups, serviceaccounts and uids (apiserver's
// pkg/endpoints/filters/impersonation.go).
#pragma once

#include "sim/auth/rbac_authorizer.hpp"
#include "sim/auth/user_info.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// The user `request` acts as: `user` itself without impersonation headers, else the
/// impersonated user (a ServiceAccount username gets the ServiceAccount groups unless groups
/// are given; system:authenticated is added as the API server does). Throws 403 Forbidden when
/// `user` may not impersonate, 400 for groups or a uid without a user.
UserInfo impersonate(const HttpRequest& request, const UserInfo& user,
                     const RbacAuthorizer& authorizer);

}  // namespace rg::sim::auth
