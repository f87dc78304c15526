// Opening, using and closing one HTTP/1.1 connection; error classification.
#include "client/transport/connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <array>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

namespace rg::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using boost::system::error_code;

namespace {

// TCP keep-alive probes after 30 s of silence, every 30 s (client-go's dialer uses 30 s), so a
// watch on a connection whose peer vanished (network cut, node gone) fails within minutes
// instead of waiting forever for the next event. Also disables Nagle for small requests.
void enable_keep_alive(asio::ip::tcp::socket& socket) {
  error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const int seconds = 30;
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &seconds, sizeof seconds);
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &seconds, sizeof seconds);
}

}  // namespace

std::string_view to_string(TransportErrorKind kind) {
  switch (kind) {
    case TransportErrorKind::kResolve:
      return "resolve";
    case TransportErrorKind::kConnect:
      return "connect";
    case TransportErrorKind::kTls:
      return "tls";
    case TransportErrorKind::kTimeout:
      return "timeout";
    case TransportErrorKind::kConnectionReset:
      return "connection reset";
    case TransportErrorKind::kTruncatedBody:
      return "truncated body";
    case TransportErrorKind::kProtocol:
      return "protocol";
    case TransportErrorKind::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

Connection::Connection(const HttpStream::executor_type& executor, std::shared_ptr<ssl::context> tls,
                       std::string where)
    : tls_(std::move(tls)),
      stream_(tls_ != nullptr ? HttpStream(executor, *tls_) : HttpStream(executor)),
      watchdog_(std::make_shared<DeadlineWatchdog>(stream_.socket())),
      where_(std::move(where)) {}

Connection::~Connection() {
  watchdog_->stop();
  close();
}

void Connection::close() {
  error_code ignored;
  auto& socket = stream_.socket();
  if (socket.is_open()) {
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }
}

bool Connection::looks_alive() {
  auto& socket = stream_.socket();
  if (!socket.is_open() || buffer_.size() != 0) return false;
  char byte = 0;
  const auto received = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // -1 with EAGAIN: nothing waiting, still open. 0: orderly close. >0: unexpected bytes.
  return received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

TransportError Connection::error(error_code ec, IoStage stage) const {
  using Kind = TransportErrorKind;
  if (ec == beast::error::timeout || timed_out()) {
    return TransportError(Kind::kTimeout, ec, "request to " + where_ + " timed out");
  }
  if (ec == asio::error::operation_aborted) {
    return TransportError(Kind::kCancelled, ec, "request to " + where_ + " was cancelled");
  }
  switch (stage) {
    case IoStage::kResolve:
      return TransportError(Kind::kResolve, ec, "cannot resolve " + where_ + ": " + ec.message());
    case IoStage::kConnect:
      return TransportError(Kind::kConnect, ec,
                            "cannot connect to " + where_ + ": " + ec.message());
    case IoStage::kHandshake: {
      std::string text = "TLS handshake with " + where_ + " failed: " + ec.message();
      if (!verify_failure_->empty()) text += ": " + *verify_failure_;
      return TransportError(Kind::kTls, ec, text);
    }
    case IoStage::kWrite:
      return TransportError(Kind::kConnectionReset, ec,
                            "connection to " + where_ + " failed while sending: " + ec.message());
    case IoStage::kReadHeader:
      if (ec == http::error::end_of_stream || ec == asio::error::eof ||
          ec == asio::error::connection_reset || ec == ssl::error::stream_truncated ||
          ec == asio::error::broken_pipe) {
        return TransportError(
            Kind::kConnectionReset, ec,
            "connection to " + where_ + " closed before a response: " + ec.message());
      }
      return TransportError(Kind::kProtocol, ec,
                            "invalid HTTP response from " + where_ + ": " + ec.message());
    case IoStage::kReadBody:
      if (ec == http::error::partial_message || ec == asio::error::eof ||
          ec == http::error::end_of_stream || ec == ssl::error::stream_truncated) {
        return TransportError(Kind::kTruncatedBody, ec,
                              "response body from " + where_ + " was cut short: " + ec.message());
      }
      if (ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
        return TransportError(
            Kind::kConnectionReset, ec,
            "connection to " + where_ + " reset while reading the body: " + ec.message());
      }
      return TransportError(Kind::kProtocol, ec,
                            "invalid HTTP body from " + where_ + ": " + ec.message());
  }
  return TransportError(Kind::kProtocol, ec, ec.message());
}

asio::awaitable<std::unique_ptr<Connection>> Connection::open(
    const ServerAddress& address, const std::shared_ptr<ssl::context>& tls,
    const std::string& server_name, Deadline deadline) {
  const auto executor = co_await asio::this_coro::executor;
  std::unique_ptr<Connection> connection(new Connection(executor, tls, address.host_header()));
  error_code ec;

  // The resolver has no deadline of its own: a timer cancels it. Both are shared with the
  // timer's handler, which may run after this frame is gone.
  const auto resolver = std::make_shared<asio::ip::tcp::resolver>(executor);
  const auto resolve_timed_out = std::make_shared<bool>(false);
  asio::steady_timer resolve_timer(executor, deadline);
  if (deadline != kNoDeadline) {
    resolve_timer.async_wait([resolver, resolve_timed_out](error_code timer_ec) {
      if (!timer_ec) {
        *resolve_timed_out = true;
        resolver->cancel();
      }
    });
  }
  const auto endpoints = co_await resolver->async_resolve(
      address.host, address.port, asio::redirect_error(asio::use_awaitable, ec));
  resolve_timer.cancel();
  if (ec && *resolve_timed_out) ec = beast::error::timeout;
  if (ec) throw connection->error(ec, IoStage::kResolve);

  connection->set_deadline(deadline);
  co_await asio::async_connect(connection->stream_.socket(), endpoints,
                               asio::redirect_error(asio::use_awaitable, ec));
  if (ec) throw connection->error(ec, IoStage::kConnect);
  enable_keep_alive(connection->stream_.socket());

  if (auto* stream = connection->stream_.tls()) {
    error_code not_ip;
    asio::ip::make_address(server_name, not_ip);
    // SNI carries host names only (RFC 6066 section 3).
    if (not_ip && SSL_set_tlsext_host_name(stream->native_handle(), server_name.c_str()) != 1) {
      throw TransportError(TransportErrorKind::kTls, {}, "cannot set TLS SNI to " + server_name);
    }
    SSL_CTX* context = SSL_get_SSL_CTX(stream->native_handle());
    if (SSL_CTX_get_verify_mode(context) != SSL_VERIFY_NONE) {
      // Keep the first reason a certificate was refused, for the error message.
      auto verify = [failure = connection->verify_failure_,
                     check = ssl::host_name_verification(server_name),
                     server_name](bool preverified, ssl::verify_context& context) mutable {
        X509_STORE_CTX* store = context.native_handle();
        if (!preverified) {
          if (failure->empty()) {
            *failure = X509_verify_cert_error_string(X509_STORE_CTX_get_error(store));
          }
          return false;
        }
        const bool ok = check(preverified, context);
        if (!ok && failure->empty()) {
          *failure = "the server certificate is not valid for \"" + server_name + "\"";
        }
        return ok;
      };
      stream->set_verify_callback(std::move(verify));
    }
    co_await stream->async_handshake(ssl::stream_base::client,
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) throw connection->error(ec, IoStage::kHandshake);
  }
  co_return connection;
}

asio::awaitable<void> Connection::write(std::string_view head, std::string_view body,
                                        Deadline deadline) {
  set_deadline(deadline);
  const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
  error_code ec;
  co_await asio::async_write(stream_, buffers, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) throw error(ec, IoStage::kWrite);
}

}  // namespace rg::client
