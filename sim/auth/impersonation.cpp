// Impersonation: which headers ask for it, the `impersonate` checks, the resulting user.
#include "sim/auth/impersonation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sim/api_error.hpp"
#include "sim/auth/attributes.hpp"

namespace rg::sim::auth {
namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

/// The namespace and name of a ServiceAccount username ("system:serviceaccount:NS:NAME").
std::optional<std::pair<std::string, std::string>> service_account_of(std::string_view username) {
  if (!username.starts_with(kServiceAccountPrefix)) return std::nullopt;
  auto rest = username.substr(kServiceAccountPrefix.size());
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      rest.find(':', colon + 1) != std::string_view::npos)
    return std::nullopt;
  return std::pair{std::string(rest.substr(0, colon)), std::string(rest.substr(colon + 1))};
}

/// Checks that `user` may impersonate `name` as `resource` (in `namespace_` for ServiceAccounts).
void require_impersonate(const UserInfo& user, const RbacAuthorizer& authorizer,
                         std::string_view resource, std::string_view namespace_,
                         std::string_view name) {
  Attributes attributes;
  attributes.user = user;
  attributes.verb = "impersonate";
  attributes.resource_request = true;
  attributes.version = "v1";
  attributes.resource = std::string(resource);
  attributes.namespace_ = std::string(namespace_);
  attributes.name = std::string(name);
  if (resource == "uids") attributes.group = "authentication.k8s.io";
  const Decision decision = authorizer.authorize(attributes);
  if (!decision.allowed) throw forbidden(attributes, decision.reason);
}

}  // namespace

UserInfo impersonate(const HttpRequest& request, const UserInfo& user,
                     const RbacAuthorizer& authorizer) {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  for (const auto& [name, value] : request.headers) {
    if (name == "impersonate-user")
      username = value;
    else if (name == "impersonate-group")
      groups.push_back(value);
    else if (name == "impersonate-uid")
      uid = value;
  }
  if (username.empty()) {
    if (!groups.empty() || !uid.empty())
      throw errors::bad_request(
          fmt::format("requested impersonation of {} without impersonating a user",
                      !groups.empty() ? "groups" : "a uid"));
    return user;
  }
  UserInfo acting;
  acting.name = username;
  acting.uid = uid;
  if (auto account = service_account_of(username)) {
    require_impersonate(user, authorizer, "serviceaccounts", account->first, account->second);
    if (groups.empty())
      groups = {std::string(kAllServiceAccounts),
                std::string(kAllServiceAccounts) + ":" + account->first};
  } else {
    require_impersonate(user, authorizer, "users", "", username);
  }
  for (const auto& group : groups) require_impersonate(user, authorizer, "groups", "", group);
  if (!uid.empty()) require_impersonate(user, authorizer, "uids", "", uid);
  const auto has = [&](std::string_view group) {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
  };
  if (username == kAnonymousUser) {
    if (!has(kAllUnauthenticated)) groups.emplace_back(kAllUnauthenticated);
  } else if (!has(kAllAuthenticated) && !has(kAllUnauthenticated)) {
    groups.emplace_back(kAllAuthenticated);
  }
  acting.groups = std::move(groups);
  return acting;
}

}  // namespace rg::sim::auth
