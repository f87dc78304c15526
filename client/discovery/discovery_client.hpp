// DiscoveryClient: which groups, versions and resources a server serves (client-go's
// discovery.DiscoveryClient.ServerGroupsAndResources). Aggregated discovery first: GET /api and
// /apis with kAggregatedDiscoveryAccept, two requests for the whole server; a server that
// answers plain application/json (no aggregated discovery) gets the legacy walk: /api, /api/v1,
// /apis, then /apis/GROUP/VERSION for every version of every group.
//
// A group version whose discovery fails (an error answer, a stale aggregated entry, a malformed
// document) is recorded in DiscoveryResult::failed and the rest is still returned, as client-go
// returns partial results with ErrGroupDiscoveryFailed. Only a failure of /api or /apis
// themselves throws (ApiError, TransportError or DiscoveryError): nothing is known then.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "client/discovery/api_resources.hpp"
#include "client/rest/rest_client.hpp"

namespace rg::client {

class DiscoveryClient {
 public:
  /// `client` must outlive this object. `use_legacy_discovery` skips aggregated discovery
  /// (client-go's DiscoveryClient.UseLegacyDiscovery).
  explicit DiscoveryClient(RestClient& client, bool use_legacy_discovery = false)
      : client_(client), use_legacy_discovery_(use_legacy_discovery) {}

  boost::asio::awaitable<DiscoveryResult> server_groups_and_resources();

 private:
  boost::asio::awaitable<DiscoveryResult> legacy(boost::json::value core_versions);
  boost::asio::awaitable<void> add_legacy_group(APIGroupResources group, DiscoveryResult& into);

  RestClient& client_;
  bool use_legacy_discovery_;
};

}  // namespace rg::client
