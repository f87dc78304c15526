// DiscoveryClient (see discovery_client.hpp). The content type of the answer says which kind of
// document came back (client-go's discovery_client.go checks it the same way).
#include "client/discovery/discovery_client.hpp"

#include <boost/json/parse.hpp>

#include <exception>

#include "client/rest/api_error.hpp"

namespace rg::client {
namespace {

namespace json = boost::json;

// A GET of a discovery document, asking for aggregated discovery when `accept` says so.
RawRequest discovery_get(std::string path, std::string_view accept = {}) {
  RawRequest request;
  request.path = std::move(path);
  request.accept = accept;
  return request;
}

bool is_aggregated(const HttpResponse& response) {
  const std::string_view type = response.header("Content-Type");
  return type.find("as=APIGroupDiscoveryList") != std::string_view::npos;
}

json::value parse_document(const HttpResponse& response, std::string_view path) {
  boost::system::error_code ec;
  json::value value = json::parse(response.body, ec);
  if (ec) {
    throw DiscoveryError("discovery document " + std::string(path) +
                         " is not JSON: " + ec.message());
  }
  return value;
}

}  // namespace

boost::asio::awaitable<DiscoveryResult> DiscoveryClient::server_groups_and_resources() {
  RawRequest core = discovery_get("/api", use_legacy_discovery_ ? "" : kAggregatedDiscoveryAccept);
  const HttpResponse core_response = co_await client_.raw(std::move(core));
  if (!is_aggregated(core_response)) {
    json::value core_versions = parse_document(core_response, "/api");
    co_return co_await legacy(std::move(core_versions));
  }
  DiscoveryResult result;
  discovery::parse_aggregated(parse_document(core_response, "/api"), result);
  RawRequest groups = discovery_get("/apis", kAggregatedDiscoveryAccept);
  const HttpResponse groups_response = co_await client_.raw(std::move(groups));
  if (!is_aggregated(groups_response)) {
    throw DiscoveryError("/apis answered " + std::string(groups_response.header("Content-Type")) +
                         " where /api answered aggregated discovery");
  }
  discovery::parse_aggregated(parse_document(groups_response, "/apis"), result);
  co_return result;
}

boost::asio::awaitable<DiscoveryResult> DiscoveryClient::legacy(json::value core_versions) {
  DiscoveryResult result;
  APIGroupResources core;
  core.versions = discovery::parse_api_versions(core_versions);
  co_await add_legacy_group(std::move(core), result);
  RawRequest groups = discovery_get("/apis");
  const HttpResponse groups_response = co_await client_.raw(std::move(groups));
  for (auto& group : discovery::parse_group_list(parse_document(groups_response, "/apis"))) {
    co_await add_legacy_group(std::move(group), result);
  }
  co_return result;
}

// Fetches each version's APIResourceList; a version that fails goes to `into.failed`.
boost::asio::awaitable<void> DiscoveryClient::add_legacy_group(APIGroupResources group,
                                                               DiscoveryResult& into) {
  APIGroupResources found{group.group, {}, {}};
  for (const auto& version : group.versions) {
    const std::string group_version = discovery::group_version(group.group, version);
    const std::string path = (group.group.empty() ? "/api/" : "/apis/") + group_version;
    std::string failure;
    try {
      RawRequest request = discovery_get(path);
      const HttpResponse response = co_await client_.raw(std::move(request));
      auto resources =
          discovery::parse_resource_list(parse_document(response, path), group.group, version);
      found.versions.push_back(version);
      for (auto& resource : resources) found.resources.push_back(std::move(resource));
      continue;
    } catch (const ApiError& e) {
      failure = e.what();
    } catch (const DiscoveryError& e) {
      failure = e.what();
    }
    into.failed[group_version] = std::move(failure);
  }
  if (!found.versions.empty()) into.groups.push_back(std::move(found));
}

}  // namespace rg::client
