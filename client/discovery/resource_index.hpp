// ResourceIndex: a discovery snapshot as lookups -- kind to resource and scope, a (partial)
// group/version/resource to its resource -- with the group's preferred version when none is
// given (client-go's DiscoveryRESTMapper over the APIGroupResources; no I/O).
#pragma once

#include <string>
#include <string_view>

#include "client/discovery/api_resources.hpp"

namespace rg::client {

class ResourceIndex {
 public:
  explicit ResourceIndex(DiscoveryResult discovery) : discovery_(std::move(discovery)) {}

  /// The resource whose kind is `kind.kind` in `kind.group`: in `kind.version`, or with an empty
  /// version in the first version (the preferred one first) that serves it. Null when none.
  const APIResource* find_kind(const GroupVersionKind& kind) const;

  /// The resource named `resource.resource` -- plural, singular or a short name, any case -- in
  /// `resource.group` and `resource.version` (empty: as for find_kind). Null when none.
  const APIResource* find_resource(const GroupVersionResource& resource) const;

  /// Why discovery of `group` (at `version`, or any version when empty) failed; empty when it
  /// did not.
  std::string failure(std::string_view group, std::string_view version) const;

  const DiscoveryResult& discovery() const { return discovery_; }

 private:
  template <class Match>
  const APIResource* find(std::string_view group, std::string_view version, Match match) const;

  DiscoveryResult discovery_;
};

}  // namespace rg::client
