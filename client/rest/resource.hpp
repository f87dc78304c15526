// ResourceRef: which collection a request addresses (group, version, plural resource, namespace,
// subresource) and the URL path it maps to:
//   core, namespaced:  /api/v1/namespaces/default/pods[/name]
//   group, namespaced: /apis/apps/v1/namespaces/default/deployments/web/scale
//   cluster-scoped:    /api/v1/nodes[/name]
// A namespaced resource without a namespace addresses all namespaces (list and watch only).
#pragma once

#include <string>
#include <string_view>

namespace rg::client {

struct ResourceRef {
  std::string group;     ///< "" for the core group
  std::string version;   ///< "v1"
  std::string resource;  ///< plural, lower case: "deployments"
  bool namespaced = true;
  std::string namespace_;   ///< empty: all namespaces (or cluster-scoped)
  std::string subresource;  ///< "status", "scale"; needs an object name

  /// A copy addressing namespace `ns`.
  ResourceRef in(std::string_view ns) const;
  /// A copy addressing subresource `name` of an object.
  ResourceRef sub(std::string_view name) const;

  /// "apps/v1" or "v1".
  std::string group_version() const;
  /// "deployments.apps" or "pods" (as in Kubernetes error messages).
  std::string group_resource() const;

  /// The path of the collection (name empty) or of one object. Throws std::invalid_argument
  /// for an incomplete reference: no version/resource, a namespace on a cluster-scoped
  /// resource, a subresource without a name, or a name that cannot be a path segment.
  std::string path(std::string_view name = {}) const;
};

/// The built-in resources the operator and informers use.
namespace resources {
ResourceRef pods();
ResourceRef nodes();
ResourceRef namespaces();
ResourceRef events();
ResourceRef config_maps();
ResourceRef deployments();
ResourceRef replica_sets();
ResourceRef leases();
}  // namespace resources

}  // namespace rg::client
