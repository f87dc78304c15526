// AuthOptions: how kube-sim authenticates and authorizes requests (kube-apiserver's
// --anonymous-auth, --api-audiences and --authorization-mode, reduced to what kube-sim needs).
#pragma once

#include <string>
#include <vector>

namespace rg::sim::auth {

struct AuthOptions {
  /// Bearer-token authentication and RBAC authorization. Off: every request acts as the
  /// administrator and everything is allowed (the TokenRequest, SelfSubjectAccessReview and
  /// SelfSubjectReview endpoints still answer).
  bool enabled = false;
  /// With `enabled`: requests without credentials act as system:anonymous (group
  /// system:unauthenticated) and meet RBAC, instead of getting 401.
  bool anonymous = false;
  /// The administrator's bearer token (user kubernetes-admin, group system:masters); empty = a
  /// random one generated at start.
  std::string admin_token;
  /// The audiences the API server accepts in ServiceAccount tokens; also the default audiences
  /// of a TokenRequest that names none.
  std::vector<std::string> api_audiences = {"https://kubernetes.default.svc.cluster.local"};
};

}  // namespace rg::sim::auth
