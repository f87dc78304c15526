// Transport: HTTP/1.1 to one API server over TCP or TLS, on coroutines. Ordinary requests use
// a capped keep-alive pool; watches get a connection of their own. Knows nothing of Kubernetes:
// rate limiting, retries on 429/503 and Status decoding live in rg::client::RestClient.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "client/config/rest_config.hpp"
#include "client/transport/body_reader.hpp"
#include "client/transport/http_message.hpp"
#include "client/transport/transport_tracer.hpp"

namespace rg::client {

struct TransportOptions {
  /// Connections in the pool, busy or idle. 25 is client-go's MaxIdleConnsPerHost; beyond it
  /// requests wait for a connection to come back (watches are not counted).
  std::size_t max_connections = 25;
  /// Idle connections older than this are closed instead of reused (Go's IdleConnTimeout).
  std::chrono::seconds idle_timeout{90};
  /// Sees each request written and each piece of a response body read; may be null.
  std::shared_ptr<TransportTracer> tracer = nullptr;
  /// The User-Agent of every request; empty = rg::user_agent() ("replica-guard/<version>").
  std::string user_agent = {};
  /// Asked immediately before each request is written to its connection (after any wait for a
  /// connection or handshake): an exception it throws ends the request before a byte of it
  /// leaves, and reaches the caller. The last check of a writer that may lose the right to
  /// write (the operator's leader fence, operator/write_fence.hpp). Must be quick; may be null.
  std::function<void(const HttpRequest&)> before_write = {};
};

/// How a response is carried.
enum class ConnectionKind {
  kPooled,     ///< borrowed from the pool, returned after a complete keep-alive exchange
  kDedicated,  ///< opened for this request and closed after it (watches)
};

struct TransportStats {
  std::size_t open = 0;     ///< pooled connections, busy or idle
  std::size_t idle = 0;     ///< pooled connections waiting for reuse
  std::size_t waiting = 0;  ///< requests waiting for a pooled connection
};

class Transport {
 public:
  /// Validates the server URL and TLS settings; throws std::invalid_argument naming the problem.
  /// Connections are made on the executor of the coroutine that sends a request. The transport
  /// must outlive its requests and BodyReaders.
  explicit Transport(const RestConfig& config, TransportOptions options = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  /// Sends `request` and returns once the response header has arrived; the body is read through
  /// the reader (whose body deadline starts as `deadline` too). `replayable` requests are sent
  /// once more when a reused pooled connection turns out to have been closed by the server.
  /// Throws TransportError.
  boost::asio::awaitable<BodyReader> send(HttpRequest request, Deadline deadline, bool replayable,
                                          ConnectionKind kind = ConnectionKind::kPooled);

  /// send() and read the whole body (at most `body_limit` bytes) before `deadline`.
  boost::asio::awaitable<HttpResponse> round_trip(HttpRequest request, Deadline deadline,
                                                  bool replayable,
                                                  std::size_t body_limit = kDefaultBodyLimit);

  TransportStats stats() const;

  static constexpr std::size_t kDefaultBodyLimit = std::size_t{1} << 30;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::client
