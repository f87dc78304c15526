// RbacAuthorizer: authorization from the Role, ClusterRole, RoleBinding and ClusterRoleBinding
// objects in kube-sim's store, as the API server's RBAC authorizer decides (and, before it, the
// system:masters group allowed everything). Rules are read from the store on every decision,
// so a binding created through the API takes effect on the next request.
#pragma once

#include <boost/json/object.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/auth/attributes.hpp"
#include "sim/object_store.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim::auth {

struct Decision {
  bool allowed = false;
  /// Allowed: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "g"` (empty
  /// for system:masters). Denied: empty, or `RBAC: <errors>` when bindings name missing roles.
  std::string reason;
};

/// Where a rule comes from: a binding (ClusterRoleBinding when binding_namespace is empty), the
/// role it refers to, and the subject that matched the user.
struct RuleSource {
  std::string_view binding;
  std::string_view binding_namespace;
  std::string_view role_kind;  ///< "Role" or "ClusterRole"
  std::string_view role_name;
  const boost::json::object* subject;
  /// `ClusterRoleBinding "b" of ClusterRole "r" to Group "g"` (rbac's describers).
  std::string describe() const;
};

/// Sees one PolicyRule (a JSON object); returns false to stop.
using RuleVisitor = std::function<bool(const boost::json::object& rule, const RuleSource& source)>;

class RbacAuthorizer {
 public:
  RbacAuthorizer(const Store& store, const ResourceTable& table);

  Decision authorize(const Attributes& attributes) const;

  /// Visits the rules granted to `user` by ClusterRoleBindings, then (when `namespace_` is not
  /// empty) by that namespace's RoleBindings, as rbac's VisitRulesFor. Returns the resolution
  /// errors (bindings naming missing roles).
  std::vector<std::string> visit_rules(const UserInfo& user, std::string_view namespace_,
                                       const RuleVisitor& visit) const;

 private:
  const Store& store_;
  const ResourceType& roles_;
  const ResourceType& cluster_roles_;
  const ResourceType& role_bindings_;
  const ResourceType& cluster_role_bindings_;
};

}  // namespace rg::sim::auth
