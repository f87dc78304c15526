// RESTMapper: kinds to resources and their scope, from the server's discovery, cached
// (client-go's meta.RESTMapper as restmapper.DeferredDiscoveryRESTMapper over a cached discovery
// client, refreshed on a miss like controller-runtime's lazy mapper).
//
// The first lookup discovers (DiscoveryClient); later lookups use the cache. A lookup that
// misses discovers again -- so a CustomResourceDefinition created after start is found -- but
// at most once per `min_refresh_interval`: a miss within the interval of the last discovery
// answers NoMatchError at once (retry later, e.g. through the workqueue's backoff). A group
// whose discovery failed does not fail the others; a miss in it says why it failed.
//
//   RESTMapper mapper(client);
//   RESTMapping widgets = co_await mapper.rest_mapping({"example.com", "", "Widget"});
//   // widgets.resource: {example.com, v1, widgets, namespaced}, ready for .in(ns) or an informer
//
// Thread-safe; concurrent misses within one interval share its one rediscovery (the others
// answer NoMatchError).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "client/discovery/discovery_client.hpp"
#include "client/discovery/resource_index.hpp"
#include "client/rest/resource.hpp"

namespace rg::client {

/// What a kind or resource maps to: the full kind and the resource to address it with (no
/// namespace set: use resource.in(ns) for a namespaced one).
struct RESTMapping {
  GroupVersionKind kind;
  ResourceRef resource;
};

/// No served kind or resource matches (client-go's NoKindMatchError / NoResourceMatchError).
class NoMatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RESTMapperOptions {
  /// The least time between two discoveries caused by misses.
  std::chrono::steady_clock::duration min_refresh_interval = std::chrono::seconds(1);
  /// Only the legacy discovery documents (see DiscoveryClient).
  bool use_legacy_discovery = false;
};

class RESTMapper {
 public:
  /// `client` must outlive the mapper.
  explicit RESTMapper(RestClient& client, RESTMapperOptions options = {});

  /// The mapping of `kind` (an empty version: the group's preferred version serving it).
  /// Throws NoMatchError, or what discovery throws when it cannot reach /api or /apis.
  boost::asio::awaitable<RESTMapping> rest_mapping(GroupVersionKind kind);

  /// The mapping of a resource given by plural, singular or short name (an empty version: the
  /// preferred one). Throws as rest_mapping does.
  boost::asio::awaitable<RESTMapping> resource_for(GroupVersionResource resource);

  /// Forgets the cache: the next lookup discovers again (client-go's Reset).
  void reset();

 private:
  template <class Key, class Find>
  boost::asio::awaitable<RESTMapping> map(Key key, Find find, std::string what);
  boost::asio::awaitable<std::shared_ptr<const ResourceIndex>> discover();
  std::shared_ptr<const ResourceIndex> cached() const;
  bool claim_refresh();

  DiscoveryClient discovery_;
  RESTMapperOptions options_;
  mutable std::mutex mutex_;
  std::shared_ptr<const ResourceIndex> index_;
  std::optional<std::chrono::steady_clock::time_point> last_discovery_;
};

}  // namespace rg::client
