// What discovery tells about a server's resources (metav1.APIResource, APIGroup) and the pure
// parsers of its documents: aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList,
// from /api and /apis with the Accept type kAggregatedDiscoveryAccept) and the legacy documents
// (APIVersions at /api, APIGroupList at /apis, APIResourceList at /api/v1 and /apis/GROUP/VERSION).
// No I/O here: DiscoveryClient fetches, these parse.
#pragma once

#include <boost/json/value.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rg::client {

/// The Accept header asking for aggregated discovery, with the legacy documents as a fallback
/// (client-go's discovery client sends the same preference; a server without aggregated
/// discovery answers the legacy document as application/json).
inline constexpr std::string_view kAggregatedDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

struct GroupVersionKind {
  std::string group;    ///< "" for the core group
  std::string version;  ///< "" in a lookup: the group's preferred version
  std::string kind;     ///< "Widget"
  friend bool operator==(const GroupVersionKind&, const GroupVersionKind&) = default;
};

struct GroupVersionResource {
  std::string group;
  std::string version;   ///< "" in a lookup: the group's preferred version
  std::string resource;  ///< plural, lower case ("widgets"); lookups also take singular/short
  friend bool operator==(const GroupVersionResource&, const GroupVersionResource&) = default;
};

/// One resource of one group version (subresources are left out).
struct APIResource {
  std::string group;
  std::string version;
  std::string resource;  ///< plural
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
};

/// A group with its versions, the preferred one first, and their resources.
struct APIGroupResources {
  std::string group;
  std::vector<std::string> versions;
  std::vector<APIResource> resources;
};

/// Everything discovery found, and what it could not find out: the group versions whose
/// discovery failed ("group/version", or "group" when the group's list was not had) with why.
/// A failed group is left out of `groups` (or holds only the versions that answered).
struct DiscoveryResult {
  std::vector<APIGroupResources> groups;
  std::map<std::string, std::string, std::less<>> failed;
};

/// A discovery document that is not what its kind says (not JSON of the expected shape).
class DiscoveryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace discovery {

/// Appends the groups of an APIGroupDiscoveryList (v2 or v2beta1; the core group has no name).
/// A version whose freshness is "Stale" (its aggregated API server did not answer) is recorded
/// in `into.failed` instead. Throws DiscoveryError for a document of another shape.
void parse_aggregated(const boost::json::value& document, DiscoveryResult& into);

/// The versions of an APIVersions document (/api): {"versions": ["v1"]}.
std::vector<std::string> parse_api_versions(const boost::json::value& document);

/// The groups of an APIGroupList (/apis): name and versions, the preferred version first.
std::vector<APIGroupResources> parse_group_list(const boost::json::value& document);

/// The resources of an APIResourceList for `group`/`version` (subresources left out).
std::vector<APIResource> parse_resource_list(const boost::json::value& document,
                                             std::string_view group, std::string_view version);

/// "apps/v1", or "v1" for the core group.
std::string group_version(std::string_view group, std::string_view version);

}  // namespace discovery
}  // namespace rg::client
