// RestClient: the Kubernetes verbs (get, list, watch, create, update, patch, delete, and
// subresources) for any group/version/resource, on top of Transport. Adds what client-go's
// rest.Request adds: Accept/Content-Type and Authorization headers, the client-side token bucket,
// retries on 429/503 with Retry-After (see retry_policy.hpp), Status decoding into ApiError, and
// a RequestObserver per attempt. Objects are boost::json values; watch and streamed list return
// the body as a BodyReader for an incremental decoder.
//
//   RestClient client(config);
//   const auto deployments = resources::deployments().in("default");
//   auto web = co_await client.get(deployments, "web");
//   const auto scale = deployments.sub("scale");
//   co_await client.patch(scale, "web", PatchType::kMerge, R"({"spec":{"replicas":3}})");
//   auto stream = co_await client.watch(deployments, {.resource_version = "42"});
//   for (auto piece = co_await stream.read_some(); !piece.empty();
//        piece = co_await stream.read_some()) decoder.feed(piece);
//
// Each verb builds its request from its arguments before it returns the awaitable (the verbs are
// not coroutines), so an awaitable may be co_spawned and run later safely. Defaulted options are
// safe with g++ 12 (they are a constant, see no_options in options.hpp, not a temporary); still
// build other non-trivial arguments in named locals rather than inside a co_await expression:
// g++ 12 mishandles such temporaries. A request that cannot be built throws
// std::invalid_argument from the call itself.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "client/config/rest_config.hpp"
#include "client/rest/options.hpp"
#include "client/rest/request_observer.hpp"
#include "client/rest/resource.hpp"
#include "client/rest/retry_policy.hpp"
#include "client/transport/body_reader.hpp"
#include "client/transport/http_message.hpp"
#include "client/transport/transport.hpp"

namespace rg::client {

struct RestClientOptions {
  TransportOptions transport;
  RetryPolicy retry;
  std::shared_ptr<RequestObserver> observer;  ///< may be null
};

/// A request outside the resource verbs: discovery, /version, /openapi/v3, ...
struct RawRequest {
  std::string method = "GET";
  std::string path;  ///< path and query, already encoded
  std::string body;
  std::string content_type;  ///< sent when not empty
  OptionalTimeout timeout;
  std::string accept;  ///< the Accept header; empty: application/json
};

/// All verbs' awaitables throw ApiError for a non-2xx answer and TransportError when no answer
/// arrived; the verbs throw std::invalid_argument for a request that cannot be built (e.g. a
/// namespaced resource without a namespace for a single-object verb). Cancelling the calling
/// coroutine (Asio cancellation slot, terminal) ends the call at once with
/// TransportError(kCancelled), whether it was doing I/O, waiting for the rate limit or for a retry;
/// its connection is closed. A timeout of zero (RestConfig::timeout or a per-call one) means none.
/// Thread-safe: one client serves many coroutines; it must outlive the calls and BodyReaders it
/// hands out.
class RestClient {
 public:
  /// Throws std::invalid_argument for a bad server URL or unusable TLS material.
  explicit RestClient(RestConfig config, RestClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const RestConfig& config() const;

  boost::asio::awaitable<boost::json::value> get(
      const ResourceRef& resource, const std::string& name,
      const GetOptions& options = no_options<GetOptions>());

  /// One LIST response (one page when options.limit is set: follow metadata.continue).
  boost::asio::awaitable<boost::json::value> list(
      const ResourceRef& resource, const ListOptions& options = no_options<ListOptions>());

  /// The LIST response body as a stream, for decoding large lists without holding the text.
  /// The body must be read before options.timeout (default RestConfig::timeout) passes.
  boost::asio::awaitable<BodyReader> list_stream(
      const ResourceRef& resource, const ListOptions& options = no_options<ListOptions>());

  /// A WATCH on its own connection; the body is newline-delimited JSON watch events. An error
  /// answer (e.g. 410 before streaming starts) throws ApiError; errors inside the stream arrive
  /// as ERROR events. The stream ends cleanly when the server closes it (timeoutSeconds).
  boost::asio::awaitable<BodyReader> watch(
      const ResourceRef& resource, const WatchOptions& options = no_options<WatchOptions>());

  /// POST `object` to the collection. Returns the created object.
  boost::asio::awaitable<boost::json::value> create(
      const ResourceRef& resource, const boost::json::value& object,
      const CreateOptions& options = no_options<CreateOptions>());

  /// PUT `object` (named by its metadata.name; its metadata.resourceVersion makes the write
  /// conditional: a stale one gives a Conflict ApiError).
  boost::asio::awaitable<boost::json::value> update(
      const ResourceRef& resource, const boost::json::value& object,
      const UpdateOptions& options = no_options<UpdateOptions>());

  /// PATCH object `name` with `patch` (JSON for kJson/kMerge/kStrategicMerge; JSON or YAML for
  /// kApply, which needs options.field_manager).
  boost::asio::awaitable<boost::json::value> patch(
      const ResourceRef& resource, const std::string& name, PatchType type, std::string patch,
      const PatchOptions& options = no_options<PatchOptions>());

  /// patch() without decoding the answer: the written object's JSON text, for a caller that
  /// reads only part of it (find_resource_version() in resource_version.hpp, for a next write
  /// conditional on this one) or decodes it its own way.
  boost::asio::awaitable<std::string> patch_text(
      const ResourceRef& resource, const std::string& name, PatchType type, std::string patch,
      const PatchOptions& options = no_options<PatchOptions>());

  /// DELETE object `name`. Returns what the server returns: a Status, or the object when
  /// deletion is pending (finalizers, graceful pod deletion).
  boost::asio::awaitable<boost::json::value> remove(
      const ResourceRef& resource, const std::string& name,
      const DeleteOptions& options = no_options<DeleteOptions>());

  /// Any request with the same headers, rate limit, retries and errors. Returns a 2xx response.
  boost::asio::awaitable<HttpResponse> raw(RawRequest request);

  TransportStats transport_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::client
