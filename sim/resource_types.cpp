// The built-in resources kube-sim's own code names (see resource_types.hpp).
#include "sim/resource_types.hpp"

namespace rg::sim {

const ResourceTypes& ResourceTypes::builtin() {
  static const ResourceTypes types = [] {
    auto find = [](std::string_view group, std::string_view resource) -> const ResourceType& {
      return ResourceTable::builtin_type(group, "v1", resource);
    };
    return ResourceTypes{find("", "pods"),
                         find("", "nodes"),
                         find("", "namespaces"),
                         find("coordination.k8s.io", "leases"),
                         find("apps", "replicasets"),
                         find("apps", "deployments"),
                         find("", "events"),
                         find("policy", "poddisruptionbudgets")};
  }();
  return types;
}

}  // namespace rg::sim
