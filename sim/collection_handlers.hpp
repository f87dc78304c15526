// LIST and WATCH of a resource collection: resourceVersion semantics, selectors, pagination
// with continue tokens, streaming of large lists, watch windows, bookmarks and initial events.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string_view>

#include "sim/http_types.hpp"
#include "sim/registry.hpp"
#include "sim/responses.hpp"

namespace rg::sim {

struct WatchSettings {
  std::chrono::milliseconds bookmark_interval{std::chrono::minutes(1)};
  /// Server-side deadline when the client sends no timeoutSeconds: a random value in
  /// [min, 2*min), like --min-request-timeout.
  std::chrono::seconds min_request_timeout{1800};
  /// kube-apiserver's WatchList feature gate (on by default since 1.34): off, a watch with
  /// sendInitialEvents is refused 422, and clients fall back to a paginated LIST.
  bool watch_list = true;
};

boost::asio::awaitable<void> serve_list(Registry& registry, const ResourceType& type,
                                        std::string_view namespace_, const HttpRequest& request,
                                        ResponseStream& stream, const Negotiation& negotiation);

boost::asio::awaitable<void> serve_watch(Registry& registry, const ResourceType& type,
                                         std::string_view namespace_, const HttpRequest& request,
                                         ResponseStream& stream, const Negotiation& negotiation,
                                         const WatchSettings& settings);

}  // namespace rg::sim
