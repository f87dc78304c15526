// RbacAuthorizer: authorization from the Role, ClusterRole, RoleBinding and ClusterRoleBinding
// objects in kube-sim's store, as the API server's RBAC authorizer decides (and, before it, the
// system:masters group allowed everything). Rules are read from the store on every decision,
// so a binding created through the API takes effect on the next request.
#pragma once

#include <string>

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

class RbacAuthorizer {
 public:
  RbacAuthorizer(const Store& store, const ResourceTable& table);

  Decision authorize(const Attributes& attributes) const;

 private:
  const Store& store_;
  const ResourceType& roles_;
  const ResourceType& cluster_roles_;
  const ResourceType& role_bindings_;
  const ResourceType& cluster_role_bindings_;
};

}  // namespace rg::sim::auth
