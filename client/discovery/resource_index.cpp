// ResourceIndex lookups (see resource_index.hpp).
#include "client/discovery/resource_index.hpp"

#include <algorithm>

#include "client/text.hpp"

namespace rg::client {

template <class Match>
const APIResource* ResourceIndex::find(std::string_view group, std::string_view version,
                                       Match match) const {
  for (const auto& candidate : discovery_.groups) {
    if (candidate.group != group) continue;
    for (const auto& served : candidate.versions) {  // the preferred version first
      if (!version.empty() && served != version) continue;
      for (const auto& resource : candidate.resources) {
        if (resource.version == served && match(resource)) return &resource;
      }
    }
  }
  return nullptr;
}

const APIResource* ResourceIndex::find_kind(const GroupVersionKind& kind) const {
  return find(kind.group, kind.version,
              [&](const APIResource& resource) { return resource.kind == kind.kind; });
}

const APIResource* ResourceIndex::find_resource(const GroupVersionResource& wanted) const {
  return find(wanted.group, wanted.version, [&](const APIResource& resource) {
    if (equals_ignore_case(resource.resource, wanted.resource)) return true;
    if (!resource.singular.empty() && equals_ignore_case(resource.singular, wanted.resource))
      return true;
    return std::any_of(
        resource.short_names.begin(), resource.short_names.end(),
        [&](const std::string& name) { return equals_ignore_case(name, wanted.resource); });
  });
}

std::string ResourceIndex::failure(std::string_view group, std::string_view version) const {
  for (const auto& [group_version, why] : discovery_.failed) {
    const auto slash = group_version.find('/');
    const std::string_view failed_group = slash == std::string::npos
                                              ? std::string_view{}
                                              : std::string_view(group_version).substr(0, slash);
    const std::string_view failed_version = slash == std::string::npos
                                                ? std::string_view(group_version)
                                                : std::string_view(group_version).substr(slash + 1);
    if (failed_group == group && (version.empty() || failed_version == version)) {
      return "discovery of " + group_version + " failed: " + why;
    }
  }
  return {};
}

}  // namespace rg::client
