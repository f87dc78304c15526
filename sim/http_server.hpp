// HttpServer: kube-sim's HTTP/1.1 server on Boost.Beast -- plain or TLS, keep-alive, one
// coroutine per connection on its own strand (safe with several io threads), streaming
// responses, and a way to close every connection at once (shutdown and fault injection).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "sim/http_types.hpp"

namespace boost::asio {
class io_context;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace rg::sim {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;                                ///< 0 = an ephemeral port
  std::size_t body_limit = std::size_t{3} * 1024 * 1024;  ///< larger request bodies get 413
  std::shared_ptr<boost::asio::ssl::context> tls;         ///< null = plain HTTP
};

/// Handles one request; may throw ApiError (answered as a Status) before it starts writing.
using HttpHandler = std::function<boost::asio::awaitable<void>(HttpRequest&, ResponseStream&)>;

class HttpServer {
 public:
  /// Binds and listens at once (so port() is known); accepting starts with start().
  HttpServer(boost::asio::io_context& io, HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  unsigned short port() const;
  bool tls() const;
  void start();
  /// Stops accepting and closes every connection.
  void stop();
  /// Closes every open connection but keeps accepting.
  void close_connections();
  /// Closes the listening socket and every connection (new connections are refused, as by a
  /// server that is down) until resume_listening().
  void stop_listening();
  /// Listens on the same address and port again and accepts (logs an error when the port cannot
  /// be bound: someone else took it meanwhile).
  void resume_listening();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace rg::sim
