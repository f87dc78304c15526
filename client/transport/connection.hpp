// Connection: one HTTP/1.1 connection to the API server over plain TCP or TLS, with its deadline
// (one DeadlineWatchdog for every phase of every exchange), its read buffer, and the mapping of
// socket/TLS/HTTP failures to TransportError. Internal to the transport (it pulls in Beast and
// Asio SSL); users go through Transport.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "client/transport/deadline_watchdog.hpp"
#include "client/transport/http_message.hpp"
#include "client/transport/server_address.hpp"
#include "client/transport/transport_error.hpp"

namespace rg::client {

/// Where an I/O error happened; decides which TransportErrorKind it maps to.
enum class IoStage { kResolve, kConnect, kHandshake, kWrite, kReadHeader, kReadBody };

/// A plain or TLS stream with one type, so Beast's HTTP algorithms are instantiated once. A plain
/// socket underneath: deadlines are the connection's DeadlineWatchdog, not a timer per operation.
class HttpStream {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  using TlsStream = boost::asio::ssl::stream<Socket>;
  using executor_type = Socket::executor_type;

  explicit HttpStream(const executor_type& executor) : stream_(std::in_place_index<0>, executor) {}
  HttpStream(const executor_type& executor, boost::asio::ssl::context& tls)
      : stream_(std::in_place_index<1>, executor, tls) {}

  executor_type get_executor() { return socket().get_executor(); }
  Socket& socket() {
    if (auto* tls = std::get_if<TlsStream>(&stream_)) return tls->next_layer();
    return std::get<Socket>(stream_);
  }
  TlsStream* tls() { return std::get_if<TlsStream>(&stream_); }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const MutableBuffers& b) {
          if (auto* tls = std::get_if<TlsStream>(&stream_)) {
            tls->async_read_some(b, std::move(handler));
          } else {
            std::get<Socket>(stream_).async_read_some(b, std::move(handler));
          }
        },
        token, buffers);
  }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& b) {
          if (auto* tls = std::get_if<TlsStream>(&stream_)) {
            tls->async_write_some(b, std::move(handler));
          } else {
            std::get<Socket>(stream_).async_write_some(b, std::move(handler));
          }
        },
        token, buffers);
  }

 private:
  std::variant<Socket, TlsStream> stream_;
};

class Connection {
 public:
  /// Resolves, connects and (for https) handshakes with SNI, certificate and host name checks.
  /// `tls` is null for http; the connection keeps it alive. Throws TransportError.
  static boost::asio::awaitable<std::unique_ptr<Connection>> open(
      const ServerAddress& address, const std::shared_ptr<boost::asio::ssl::context>& tls,
      const std::string& server_name, Deadline deadline);

  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  HttpStream& stream() { return stream_; }
  boost::beast::flat_buffer& buffer() { return buffer_; }

  /// The deadline of every following operation until changed; kNoDeadline = none. Cheap: see
  /// DeadlineWatchdog.
  void set_deadline(Deadline deadline) { watchdog_->set_deadline(deadline); }

  /// True once a deadline has passed (the socket is closed).
  bool timed_out() const { return watchdog_->expired(); }

  /// Sends one request, `head` (request line and header fields, up to the empty line) and `body`
  /// in one gathered write, before `deadline`. Throws TransportError.
  boost::asio::awaitable<void> write(std::string_view head, std::string_view body,
                                     Deadline deadline);

  /// Turns an error of stage `stage` into a TransportError naming the server and the cause (a
  /// timeout, whatever error it surfaced as, once the deadline has passed).
  TransportError error(boost::system::error_code ec, IoStage stage) const;

  /// False when an idle connection has been closed by the server or has unexpected bytes
  /// waiting (e.g. a 408 or TLS close_notify): reusing it would fail.
  bool looks_alive();

  /// The TLS context the connection was made with (null for http): the pool reuses a
  /// connection only for requests that would use the same one.
  const boost::asio::ssl::context* tls_context() const { return tls_.get(); }

  /// Closes the socket at once (no TLS close_notify: prompt, and the peer sees a reset/EOF).
  void close();

  bool reused = false;  ///< has completed at least one exchange
  std::chrono::steady_clock::time_point idle_since;

 private:
  Connection(const HttpStream::executor_type& executor,
             std::shared_ptr<boost::asio::ssl::context> tls, std::string where);

  std::shared_ptr<boost::asio::ssl::context> tls_;  ///< outlives stream_, which uses it
  HttpStream stream_;
  std::shared_ptr<DeadlineWatchdog> watchdog_;  ///< of stream_'s socket
  boost::beast::flat_buffer buffer_;
  std::string where_;  ///< "host:port", for messages
  std::shared_ptr<std::string> verify_failure_ = std::make_shared<std::string>();
};

}  // namespace rg::client
