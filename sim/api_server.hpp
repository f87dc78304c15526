// ApiServer: the request handler of kube-sim -- routes discovery/OpenAPI/version, the admin
// endpoint and resource requests (get, list, watch, create, update, patch, delete,
// deletecollection, subresources) to the registry, and answers errors as Status objects.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "sim/collection_handlers.hpp"
#include "sim/discovery.hpp"
#include "sim/http_types.hpp"
#include "sim/registry.hpp"
#include "sim/write_record.hpp"

namespace rg::sim {

struct ApiServerOptions {
  WatchSettings watch;
  VersionInfo version;
};

/// Runs before each request; returns true when it answered the request itself (admin endpoint,
/// injected faults).
using RequestHook = std::function<boost::asio::awaitable<bool>(HttpRequest&, ResponseStream&)>;

class ApiServer {
 public:
  ApiServer(Registry& registry, ApiServerOptions options, std::string server_address);

  void set_hook(RequestHook hook) { hook_ = std::move(hook); }
  /// Records every write request from now on, carried out or answered with an error (null: none).
  void set_write_record(WriteRecord* record) { write_record_ = record; }

  /// The HttpHandler: throws ApiError for API errors, which HttpServer answers as Status
  /// responses.
  boost::asio::awaitable<void> handle(HttpRequest& request, ResponseStream& stream);

 private:
  boost::asio::awaitable<void> handle_resource(HttpRequest& request, ResponseStream& stream);

  /// The discovery documents for the resources served now (rebuilt when
  /// CustomResourceDefinitions change them).
  std::shared_ptr<const Discovery> discovery();

  Registry& registry_;
  ApiServerOptions options_;
  std::string server_address_;
  std::mutex discovery_mutex_;
  std::shared_ptr<const Discovery> discovery_;
  std::uint64_t discovery_generation_ = 0;
  RequestHook hook_;
  WriteRecord* write_record_ = nullptr;
};

}  // namespace rg::sim
