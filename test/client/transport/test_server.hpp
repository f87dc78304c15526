// TestServer: a small scriptable HTTP/1.1 (optionally TLS) server on 127.0.0.1 and an ephemeral
// port, for the transport and REST client tests. Each request goes to a handler coroutine that
// answers however the test needs: a normal response, raw bytes (odd chunking, a cut-off body),
// silence, or closing the connection.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "client/config/rest_config.hpp"
#include "client/transport/connection.hpp"
#include "client/transport/http_message.hpp"

namespace rg::test {

struct ServerRequest {
  std::string method;
  std::string target;
  client::HttpHeaders headers;
  std::string body;
  std::string_view header(std::string_view name) const {
    return client::find_header(headers, name);
  }
};

/// One accepted connection, as seen by a handler.
class ServerSession {
 public:
  ServerSession(client::HttpStream stream, int id) : stream_(std::move(stream)), id_(id) {}

  int id() const { return id_; }  ///< 1 for the first accepted connection, 2 for the next...
  /// The subject of the client certificate presented in the TLS handshake, RFC 2253 style
  /// ("CN=alice,O=team"); empty when none was presented or the server is plain HTTP.
  const std::string& peer_subject() const { return peer_subject_; }

  /// A complete response with Content-Length. The connection stays open for the next request.
  boost::asio::awaitable<void> respond(int status, std::string body,
                                       client::HttpHeaders headers = {});
  /// Bytes written as they are (status line, headers, chunks: all up to the test).
  boost::asio::awaitable<void> write_raw(std::string_view bytes);
  /// Waits until the client closes the connection (or the server stops).
  boost::asio::awaitable<void> wait_for_close();
  /// Closes the connection; no further request is read from it.
  void close();
  bool open() const { return open_; }

 private:
  friend class TestServer;
  client::HttpStream stream_;
  boost::beast::flat_buffer buffer_;
  int id_;
  std::string peer_subject_;
  bool open_ = true;
  std::shared_ptr<int> closed_by_client_;
};

class TestServer {
 public:
  using Handler = std::function<boost::asio::awaitable<void>(ServerSession&, ServerRequest)>;

  /// Starts listening at once; `tls` (a server context) makes it an HTTPS server.
  TestServer(boost::asio::io_context& io, Handler handler,
             std::shared_ptr<boost::asio::ssl::context> tls = nullptr);
  ~TestServer();

  std::string url() const;  ///< "http://127.0.0.1:<port>" or https
  int connections_accepted() const { return *accepted_; }
  int connections_closed_by_client() const { return *closed_by_client_; }
  int requests() const { return *requests_; }

 private:
  boost::asio::awaitable<void> accept_loop();
  boost::asio::awaitable<void> serve(std::shared_ptr<ServerSession> session);

  boost::asio::io_context& io_;
  Handler handler_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<int> accepted_ = std::make_shared<int>(0);
  std::shared_ptr<int> closed_by_client_ = std::make_shared<int>(0);
  std::shared_ptr<int> requests_ = std::make_shared<int>(0);
  std::shared_ptr<bool> stopped_ = std::make_shared<bool>(false);
};

/// Runs `io` until `done()` holds (checked after each handler); throws after 30 s without any
/// handler running, so a bug shows as a failed test rather than a hung one.
void run_until(boost::asio::io_context& io, const std::function<bool()>& done);

/// Runs `io` until `task` completes and returns its result (rethrowing its exception). The
/// server's own coroutines stay suspended between calls.
template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
  std::optional<T> result;
  std::exception_ptr error;
  bool finished = false;
  boost::asio::co_spawn(io, std::move(task), [&](const std::exception_ptr& e, T value) {
    error = e;
    if (!e) result.emplace(std::move(value));
    finished = true;
  });
  run_until(io, [&] { return finished; });
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

void run(boost::asio::io_context& io, boost::asio::awaitable<void> task);

/// A server TLS context for `cert_pem`/`key_pem`; with `client_ca_pem` it requires client
/// certificates signed by that CA (mutual TLS).
/// A RestConfig for `server` (its URL, no credentials).
client::RestConfig config_for(const TestServer& server);

std::shared_ptr<boost::asio::ssl::context> server_tls(const std::string& cert_pem,
                                                      const std::string& key_pem,
                                                      const std::string& client_ca_pem = {});

}  // namespace rg::test
