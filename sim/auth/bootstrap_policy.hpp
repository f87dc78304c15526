// The default RBAC policy a cluster starts with (kubernetes plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy), reduced to what kube-sim needs: cluster-admin for system:masters, discovery
// and OpenAPI for every authenticated user (system:discovery), the self reviews
// (system:basic-user), and /version and health for everyone (system:public-info-viewer).
#pragma once

#include "sim/registry.hpp"

namespace rg::sim::auth {

/// Creates the default ClusterRoles and ClusterRoleBindings that do not exist yet.
void bootstrap_policy(Registry& registry);

}  // namespace rg::sim::auth
