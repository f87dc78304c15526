// The API permissions replica-guard needs, derived from its flags: the one list that the startup
// self-check asks the API server about (a SelfSubjectAccessReview each) and that test/ship
// compares with the RBAC rules of manifests/ and the Helm chart, so neither can drift.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "operator/options.hpp"

namespace rg::client {
class RestClient;
}

namespace rg::op {

/// Where kubelets keep their node Leases (one per node, named after it).
inline constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

struct Permission {
  std::string verb;
  std::string group;  ///< "" for the core group
  std::string resource;
  std::string subresource;
  std::string namespace_;  ///< "" = cluster-wide: all namespaces, or a cluster-scoped resource
  std::string why;         ///< what the operator does with it

  /// `patch deployments.apps/scale in namespace "shop"`, `list nodes cluster-wide`.
  std::string describe() const;
  bool operator==(const Permission& other) const = default;
};

/// What the operator does with its flags needs. `own_namespace` is where the Lease lives when
/// --leader-election-namespace is empty.
std::vector<Permission> required_permissions(const Options& options,
                                             std::string_view own_namespace);

/// Asks the API server (SelfSubjectAccessReview) about each permission; returns those that are
/// not allowed. Throws client::ApiError when the reviews themselves cannot be made.
boost::asio::awaitable<std::vector<Permission>> missing_permissions(client::RestClient& client,
                                                                    std::vector<Permission> wanted);

/// One message listing exactly what to grant, and where the rules live.
std::string missing_permissions_message(const std::vector<Permission>& missing);

}  // namespace rg::op
