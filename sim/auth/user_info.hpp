// UserInfo: who a request comes from once authenticated (apiserver's user.Info), and the
// well-known user and group names of a Kubernetes cluster.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rg::sim::auth {

struct UserInfo {
  std::string name;  ///< "kubernetes-admin", "system:serviceaccount:ns:sa"
  std::string uid;   ///< the ServiceAccount's uid for service account tokens
  std::vector<std::string> groups;
  /// Extra attributes, e.g. authentication.kubernetes.io/credential-id of a client certificate.
  std::map<std::string, std::vector<std::string>> extra;

  bool in_group(std::string_view group) const {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
  }
};

inline constexpr std::string_view kSystemMasters = "system:masters";
inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
inline constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kAllServiceAccounts = "system:serviceaccounts";
/// The administrator of a kubeadm cluster (kube-sim's written kubeconfig authenticates as it).
inline constexpr std::string_view kAdminUser = "kubernetes-admin";
/// The extra key naming the credential a request authenticated with.
inline constexpr std::string_view kCredentialIdKey = "authentication.kubernetes.io/credential-id";

/// "system:serviceaccount:<namespace>:<name>".
inline std::string service_account_username(std::string_view namespace_, std::string_view name) {
  return "system:serviceaccount:" + std::string(namespace_) + ":" + std::string(name);
}

/// The user a ServiceAccount token authenticates as, with the groups the API server adds.
inline UserInfo service_account_user(std::string_view namespace_, std::string_view name,
                                     std::string_view uid) {
  return {service_account_username(namespace_, name),
          std::string(uid),
          {std::string(kAllServiceAccounts),
           std::string(kAllServiceAccounts) + ":" + std::string(namespace_),
           std::string(kAllAuthenticated)},
          {}};
}

inline UserInfo admin_user() {
  return {std::string(kAdminUser),
          "",
          {std::string(kSystemMasters), std::string(kAllAuthenticated)},
          {}};
}

inline UserInfo anonymous_user() {
  return {std::string(kAnonymousUser), "", {std::string(kAllUnauthenticated)}, {}};
}

}  // namespace rg::sim::auth
