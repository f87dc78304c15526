// HttpServer: the Beast side -- accept loop, per-connection coroutines (plain and TLS), request
// parsing with a body limit, complete and chunked responses.
#include "sim/http_server.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "sim/api_error.hpp"
#include "sim/auth/client_certificates.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

// At most kUnsentLowWater bytes wait unsent in a connection's socket (TCP_NOTSENT_LOWAT): a
// write beyond that waits in kube-sim until the peer's window opens, then kube-sim's own thread
// sends it. Without the bound the kernel holds up to the send buffer's megabytes unsent, and
// over loopback the reader's window updates push them from the reader's thread: a client
// reading a fast stream (a streaming list) paid for the sending side's TCP work, which an API
// server on another machine does on its own (informer_sync_bench: the informer's CPU per
// streamed pod -8% and -14% in two alternating pairs of runs; README, Benchmarks).
constexpr int kUnsentLowWater = 16 * 1024;

void keep_unsent_small(tcp::socket& socket) {
  const int bytes = kUnsentLowWater;
  if (::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &bytes, sizeof bytes) !=
      0)
    spdlog::debug("kube-sim: TCP_NOTSENT_LOWAT not set: {}", std::strerror(errno));
}

constexpr std::string_view kCrlf = "\r\n";

template <class Stream>
class Connection final : public ResponseStream,
                         public std::enable_shared_from_this<Connection<Stream>> {
 public:
  template <class... Args>
  explicit Connection(Args&&... args) : stream_(std::forward<Args>(args)...) {}

  tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
  Stream& stream() { return stream_; }

  asio::awaitable<void> run(const HttpServerOptions& options, const HttpHandler& handler) {
    if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
      co_await stream_.async_handshake(asio::ssl::stream_base::server, use_awaitable);
      peer_certificate_ = auth::peer_certificate(stream_.native_handle());
    }
    // One HttpRequest per connection, refilled for every request: its strings keep their
    // capacity, so a keep-alive connection parses requests without allocating for them.
    HttpRequest request;
    request.peer_certificate = peer_certificate_;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options.body_limit);
      boost::system::error_code ec;
      co_await http::async_read(stream_, buffer_, parser, asio::redirect_error(use_awaitable, ec));
      if (ec == http::error::body_limit) {
        co_await send_too_large(options.body_limit);
        co_await drain();
        co_return;
      }
      if (ec) co_return;
      auto& message = parser.get();
      fill(request, message);
      request.received = std::chrono::system_clock::now();
      keep_alive_ = message.keep_alive();
      started_ = false;
      co_await respond(handler, request);
      if (!keep_alive_) break;
    }
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  // The status line and headers are written by hand into a buffer the connection reuses, and
  // go out with the body in one gathered write. The header fields are what Beast's
  // response::set() and prepare_payload() would make: Server first, a later header of the same
  // name replaces an earlier one (except Warning: kube-apiserver sends one per warning),
  // Connection: close when the connection ends, Content-Length last (none for 1xx, 204 and 304).
  asio::awaitable<void> send(HttpResponse& response) override {
    head_.clear();
    head_.append("HTTP/1.1 ").append(std::to_string(response.status)).append(" ");
    head_.append(http::obsolete_reason(static_cast<http::status>(response.status)));
    head_.append("\r\nServer: kube-sim\r\n");
    const auto& headers = response.headers;
    for (std::size_t i = 0; i < headers.size(); ++i) {
      const std::string& name = headers[i].first;
      if (beast::iequals(name, "server") || beast::iequals(name, "content-length")) continue;
      const bool replaced =
          !beast::iequals(name, "warning") &&
          std::any_of(headers.begin() + static_cast<std::ptrdiff_t>(i) + 1, headers.end(),
                      [&](const auto& later) { return beast::iequals(later.first, name); });
      if (!replaced) head_.append(name).append(": ").append(headers[i].second).append("\r\n");
    }
    if (!keep_alive_) head_.append("Connection: close\r\n");
    const int status = response.status;
    if (status / 100 != 1 && status != 204 && status != 304)
      head_.append("Content-Length: ").append(std::to_string(response.body.size())).append("\r\n");
    head_.append("\r\n");
    started_ = true;
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(head_),
                                                    asio::buffer(response.body)};
    co_await asio::async_write(stream_, buffers, use_awaitable);
  }

  asio::awaitable<void> begin(int status, const Headers& headers) override {
    http::response<http::empty_body> message{static_cast<http::status>(status), 11};
    message.set(http::field::server, "kube-sim");
    for (auto& [name, value] : headers) message.set(name, value);
    message.keep_alive(keep_alive_);
    message.chunked(true);
    http::response_serializer<http::empty_body> serializer{message};
    started_ = true;
    co_await http::async_write_header(stream_, serializer, use_awaitable);
  }

  // A chunk is framed here (`<size in hex>\r\n`, the parts, `\r\n`: RFC 9112 section 7.1) as
  // one flat list of buffers. Beast's make_chunk walks its concatenated buffer sequence one
  // buffer at a time through a variant iterator: with three views per watch event, that walk
  // was most of kube-sim's CPU while streaming a watch list (callgrind).
  asio::awaitable<void> chunk(std::span<const std::string_view> parts) override {
    buffers_.assign(1, asio::const_buffer());  // the size line, once the size is known
    std::size_t size = 0;
    for (auto part : parts) {
      if (part.empty()) continue;
      buffers_.emplace_back(part.data(), part.size());
      size += part.size();
    }
    if (size == 0) co_return;
    chunk_size_.clear();
    fmt::format_to(std::back_inserter(chunk_size_), "{:x}\r\n", size);
    buffers_.front() = asio::buffer(chunk_size_);
    buffers_.emplace_back(asio::buffer(kCrlf));
    co_await asio::async_write(stream_, buffers_, use_awaitable);
  }

  asio::awaitable<void> end() override {
    co_await asio::async_write(stream_, http::make_chunk_last(), use_awaitable);
  }

  asio::awaitable<void> wait_closed() override {
    co_await socket().async_wait(tcp::socket::wait_read, use_awaitable);
  }

  asio::any_io_executor executor() override { return socket().get_executor(); }

  bool started() const { return started_; }

 private:
  asio::awaitable<void> send_too_large(std::size_t limit) {
    keep_alive_ = false;
    HttpResponse response = status_response(
        errors::request_entity_too_large("limit is " + std::to_string(limit)).status());
    co_await send(response);
  }

  // Reads and discards what the client still sends (up to a bound), so closing does not reset
  // the connection before the client has read the answer.
  asio::awaitable<void> drain() {
    beast::error_code ec;
    socket().shutdown(tcp::socket::shutdown_send, ec);
    constexpr std::size_t kSinkBytes = std::size_t{64} * 1024;
    constexpr std::size_t kDrainLimit = kSinkBytes * 1024;
    std::vector<char> sink(kSinkBytes);
    for (std::size_t total = 0; total < kDrainLimit;) {
      auto n = co_await socket().async_read_some(asio::buffer(sink),
                                                 asio::redirect_error(use_awaitable, ec));
      if (ec) break;
      total += n;
    }
  }

  // Runs the handler; what it throws before its response started is answered as a Status
  // (ApiError's own, anything else a 500 InternalError). After that, or when the connection
  // itself failed, the exception ends the connection: the client sees a truncated response.
  asio::awaitable<void> respond(const HttpHandler& handler, HttpRequest& request) {
    std::optional<client::Status> failure;
    try {
      co_await handler(request, *this);
    } catch (const ApiError& error) {
      if (started_) throw;
      failure = error.status();
    } catch (const boost::system::system_error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& error) {
      if (started_) throw;
      failure = errors::internal(error.what()).status();
    }
    if (failure) {
      HttpResponse response = status_response(*failure);
      co_await send(response);
    }
  }

  // Copies a parsed request into `request`, reusing its strings' capacity.
  static void fill(HttpRequest& request, http::request<http::string_body>& message) {
    request.method.assign(message.method_string());
    request.target.assign(message.target());
    request.query.clear();
    parse_target(request.target, request.path, request.query);
    std::size_t count = 0;
    for (const auto& field : message) {
      if (count == request.headers.size()) request.headers.emplace_back();
      auto& [name, value] = request.headers[count++];
      name.assign(field.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      value.assign(field.value());
    }
    request.headers.resize(count);
    request.body.swap(message.body());
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::string head_;
  std::vector<asio::const_buffer> buffers_;
  std::string chunk_size_;
  std::shared_ptr<const PeerCertificate> peer_certificate_;
  bool keep_alive_ = true;
  bool started_ = false;
};

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io, HttpServerOptions options, HttpHandler handler)
      : io(io), options(std::move(options)), handler(std::move(handler)), acceptor(io) {}

  asio::io_context& io;
  HttpServerOptions options;
  HttpHandler handler;
  tcp::acceptor acceptor;
  std::mutex mutex;
  std::map<std::uint64_t, std::function<void()>> closers;
  std::uint64_t next_id = 0;
  unsigned short port = 0;

  std::uint64_t track(std::function<void()> closer) {
    std::lock_guard lock(mutex);
    closers.emplace(++next_id, std::move(closer));
    return next_id;
  }
  void untrack(std::uint64_t id) {
    std::lock_guard lock(mutex);
    closers.erase(id);
  }
  void close_all() {
    std::map<std::uint64_t, std::function<void()>> all;
    {
      std::lock_guard lock(mutex);
      all = closers;
    }
    for (auto& [id, close] : all) close();
  }

  template <class Stream>
  asio::awaitable<void> serve(std::shared_ptr<Connection<Stream>> connection) {
    std::weak_ptr<Connection<Stream>> weak = connection;
    auto executor = connection->executor();
    auto id = track([weak, executor] {
      asio::post(executor, [weak] {
        if (auto alive = weak.lock()) {
          beast::error_code ignored;
          alive->socket().shutdown(tcp::socket::shutdown_both, ignored);
          alive->socket().close(ignored);
        }
      });
    });
    try {
      co_await connection->run(options, handler);
    } catch (const boost::system::system_error& error) {
      spdlog::debug("kube-sim: connection ended: {}", error.what());
    } catch (const std::exception& error) {
      spdlog::warn("kube-sim: request failed after the response started: {}", error.what());
    }
    untrack(id);
  }

  // Returns the port bound (the ephemeral one chosen for port 0).
  unsigned short listen(unsigned short on_port) {
    tcp::endpoint endpoint(asio::ip::make_address(options.address), on_port);
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen();
    return acceptor.local_endpoint().port();
  }

  asio::awaitable<void> accept_loop() {
    auto self = shared_from_this();
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket(asio::make_strand(io));
      co_await acceptor.async_accept(socket, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (!acceptor.is_open()) co_return;
        spdlog::warn("kube-sim: accept failed: {}", ec.message());
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      keep_unsent_small(socket);
      auto executor = socket.get_executor();
      if (options.tls) {
        using TlsStream = asio::ssl::stream<beast::tcp_stream>;
        auto connection = std::make_shared<Connection<TlsStream>>(
            beast::tcp_stream(std::move(socket)), *options.tls);
        asio::co_spawn(executor, serve(std::move(connection)), asio::detached);
      } else {
        auto connection = std::make_shared<Connection<beast::tcp_stream>>(std::move(socket));
        asio::co_spawn(executor, serve(std::move(connection)), asio::detached);
      }
    }
  }
};

HttpServer::HttpServer(asio::io_context& io, HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_shared<Impl>(io, std::move(options), std::move(handler))) {
  impl_->port = impl_->listen(impl_->options.port);
}

HttpServer::~HttpServer() = default;

unsigned short HttpServer::port() const { return impl_->port; }

bool HttpServer::tls() const { return impl_->options.tls != nullptr; }

void HttpServer::start() {
  asio::co_spawn(impl_->acceptor.get_executor(), impl_->accept_loop(), asio::detached);
}

void HttpServer::stop() {
  asio::post(impl_->acceptor.get_executor(), [impl = impl_] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
  impl_->close_all();
}

void HttpServer::close_connections() { impl_->close_all(); }

void HttpServer::stop_listening() { stop(); }

void HttpServer::resume_listening() {
  // On the acceptor's executor, after the close stop_listening() posted there.
  auto reopen = [impl = impl_] {
    if (impl->acceptor.is_open()) return;
    try {
      impl->listen(impl->port);  // the same port: `port` is not written again
    } catch (const boost::system::system_error& error) {
      beast::error_code ignored;
      impl->acceptor.close(ignored);
      spdlog::error("kube-sim: cannot listen on port {} again: {}", impl->port, error.what());
      return;
    }
    asio::co_spawn(impl->acceptor.get_executor(), impl->accept_loop(), asio::detached);
  };
  asio::post(impl_->acceptor.get_executor(), std::move(reopen));
}

}  // namespace rg::sim
