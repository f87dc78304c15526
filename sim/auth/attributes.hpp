// Attributes: what an authorizer decides on (apiserver's authorizer.Attributes) -- the user,
// the verb, and either a resource (group, resource, subresource, namespace, name) or a
// non-resource path -- read from an HTTP request, and the 401/403 errors the API server answers.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "sim/api_error.hpp"
#include "sim/auth/user_info.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

struct Attributes {
  UserInfo user;
  /// get, list, watch, create, update, patch, delete, deletecollection for resources; the
  /// lower-case HTTP method for paths.
  std::string verb;
  bool resource_request = false;
  std::string namespace_;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;  ///< for non-resource requests
};

/// The attributes of `request` made by `user`, as apiserver's RequestInfoFactory reads them
/// (a list or watch with the field selector `metadata.name=X` names X).
Attributes request_attributes(const HttpRequest& request, UserInfo user);

/// The attributes an access review's spec asks about (SelfSubjectAccessReview,
/// SubjectAccessReview): exactly one of spec.resourceAttributes / spec.nonResourceAttributes,
/// else 422 Invalid for `kind`.
Attributes review_attributes(const boost::json::object& spec, std::string_view kind, UserInfo user);

/// The 403 Forbidden the API server answers, e.g. `pods is forbidden: User "u" cannot list
/// resource "pods" in API group "" at the cluster scope`; `reason` (if any) is appended after ": ".
ApiError forbidden(const Attributes& attributes, std::string_view reason);

/// The 401 Unauthorized for missing or invalid credentials.
ApiError unauthorized();

}  // namespace rg::sim::auth
