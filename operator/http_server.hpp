// A small HTTP/1.1 server (Boost.Beast, coroutines) for the operator's own endpoints: /metrics on
// one port, /healthz and /readyz on another. One server per port, plain GET routes; optionally
// HTTPS (the secure metrics server: HTTP/1.1 only, Beast has no HTTP/2) and a filter in front of
// the routes (its authentication and authorization).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rg::op {

struct HttpReply {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

/// Answers one GET; `query` is the part after '?' (may be empty).
using HttpRoute = std::function<HttpReply(std::string_view query)>;

/// What a filter sees of a request.
struct HttpRequestHead {
  std::string method;  ///< "GET", "HEAD"
  std::string path;    ///< without the query
  std::string authorization;
};

/// Runs before a route: a reply refuses the request, nullopt lets the route answer.
using HttpFilter =
    std::function<boost::asio::awaitable<std::optional<HttpReply>>(const HttpRequestHead&)>;

/// The TLS context for a new connection (the certificate current when it is accepted).
using TlsContextSource = std::function<std::shared_ptr<boost::asio::ssl::context>()>;

/// Parses a bind address as controller-runtime takes it: ":8080" (all interfaces), "127.0.0.1:0",
/// "[::1]:8081". Throws std::invalid_argument naming the text otherwise.
boost::asio::ip::tcp::endpoint parse_bind_address(std::string_view text);

class HttpServer {
 public:
  /// Binds and listens at once, so a port in use is an error at start, not later.
  HttpServer(const boost::asio::any_io_executor& executor,
             const boost::asio::ip::tcp::endpoint& endpoint);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Adds a route; call before run().
  void route(std::string path, HttpRoute handler);
  /// Serves HTTPS with the contexts `source` gives; call before run().
  void use_tls(TlsContextSource source);
  /// Puts `filter` in front of every route; call before run().
  void filter(HttpFilter filter);
  boost::asio::ip::tcp::endpoint local_endpoint() const;

  /// Serves until cancelled (through the awaiting coroutine's cancellation slot); then closes the
  /// listener and every open connection before returning.
  boost::asio::awaitable<void> run();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace rg::op
