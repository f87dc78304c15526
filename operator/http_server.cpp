// The operator's HTTP server (see http_server.hpp).
#include "operator/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <charconv>
#include <chrono>
#include <set>
#include <stdexcept>

namespace rg::op {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

constexpr auto kReadTimeout = std::chrono::seconds(30);
constexpr std::size_t kMaxRequestBytes = std::size_t{64} * 1024;
constexpr auto kAcceptRetryPause = std::chrono::milliseconds(100);
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);

}  // namespace

tcp::endpoint parse_bind_address(std::string_view text) {
  const auto invalid = [&] {
    return std::invalid_argument("bind address \"" + std::string(text) +
                                 "\" is not host:port (expected e.g. :8080 or 127.0.0.1:8081)");
  };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) throw invalid();
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port > 65535)
    throw invalid();
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) return {tcp::v4(), static_cast<unsigned short>(port)};
  boost::system::error_code parse_error;
  const auto address = asio::ip::make_address(std::string(host), parse_error);
  if (parse_error) throw invalid();
  return {address, static_cast<unsigned short>(port)};
}

struct HttpServer::State {
  explicit State(const asio::any_io_executor& executor)
      : strand(asio::make_strand(executor)), acceptor(strand), drained(strand) {}

  asio::strand<asio::any_io_executor> strand;  // sessions and their sockets live on it
  tcp::acceptor acceptor;
  std::map<std::string, HttpRoute, std::less<>> routes;
  TlsContextSource tls;  // empty: plain HTTP
  HttpFilter filter;     // empty: none
  // Touched only on the strand:
  std::set<beast::tcp_stream*> sessions;
  bool stopping = false;
  asio::steady_timer drained;  // expires when the last session ends after a stop

  asio::awaitable<HttpReply> answer(const http::request<http::string_body>& request) const {
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      co_return HttpReply{405, "text/plain; charset=utf-8", "only GET is served here\n"};
    }
    const std::string_view target = request.target();
    const auto question = target.find('?');
    const std::string_view path = target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? "" : target.substr(question + 1);
    const auto route = routes.find(path);
    if (route == routes.end())
      co_return HttpReply{404, "text/plain; charset=utf-8", "404 page not found\n"};
    if (filter) {
      const HttpRequestHead head{std::string(request.method_string()), std::string(path),
                                 std::string(request[http::field::authorization])};
      if (auto refused = co_await filter(head)) co_return std::move(*refused);
    }
    co_return route->second(query);
  }

  // Reads requests and writes their replies on `stream` until the client is done or an error.
  template <class Stream>
  asio::awaitable<void> exchange(Stream& stream) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(kMaxRequestBytes);
      beast::get_lowest_layer(stream).expires_after(kReadTimeout);
      boost::system::error_code ec;
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      const auto& request = parser.get();
      const HttpReply reply = co_await answer(request);
      http::response<http::string_body> response{static_cast<http::status>(reply.status),
                                                 request.version()};
      response.set(http::field::content_type, reply.content_type);
      response.keep_alive(request.keep_alive());
      if (request.method() != http::verb::head) response.body() = reply.body;
      response.prepare_payload();
      beast::get_lowest_layer(stream).expires_after(kReadTimeout);
      co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
      if (ec || !response.keep_alive()) break;
    }
  }

  asio::awaitable<void> serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    if (stopping) co_return;
    sessions.insert(&stream);
    if (tls) {
      const std::shared_ptr<asio::ssl::context> context = tls();
      beast::ssl_stream<beast::tcp_stream&> secure(stream, *context);
      stream.expires_after(kReadTimeout);
      boost::system::error_code ec;
      co_await secure.async_handshake(asio::ssl::stream_base::server,
                                      asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) {
        co_await exchange(secure);
        stream.expires_after(kTlsShutdownTimeout);
        co_await secure.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
      }
    } else {
      co_await exchange(stream);
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    sessions.erase(&stream);
    if (stopping && sessions.empty()) drained.expires_at(asio::steady_timer::time_point::min());
  }

  // On the strand: stop taking sessions, close the open ones and wait until they have ended.
  asio::awaitable<void> drain() {
    stopping = true;
    if (sessions.empty()) co_return;
    drained.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ignored;
    for (beast::tcp_stream* stream : sessions) stream->socket().close(ignored);
    co_await drained.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
};

HttpServer::HttpServer(const asio::any_io_executor& executor, const tcp::endpoint& endpoint)
    : state_(std::make_shared<State>(executor)) {
  auto& acceptor = state_->acceptor;
  acceptor.open(endpoint.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen();
}

HttpServer::~HttpServer() = default;

void HttpServer::route(std::string path, HttpRoute handler) {
  state_->routes.insert_or_assign(std::move(path), std::move(handler));
}

void HttpServer::use_tls(TlsContextSource source) { state_->tls = std::move(source); }

void HttpServer::filter(HttpFilter filter) { state_->filter = std::move(filter); }

tcp::endpoint HttpServer::local_endpoint() const { return state_->acceptor.local_endpoint(); }

asio::awaitable<void> HttpServer::run() {
  const std::shared_ptr<State> state = state_;
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket =
        co_await state->acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) break;  // shutdown
    if (ec) {  // e.g. out of file descriptors: pause instead of spinning, then keep serving
      asio::steady_timer pause(state->strand, kAcceptRetryPause);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted) break;
      continue;
    }
    asio::co_spawn(
        state->strand,
        [state, socket = std::move(socket)]() mutable { return state->serve(std::move(socket)); },
        asio::detached);
  }
  boost::system::error_code ignored;
  state->acceptor.close(ignored);
  // Cancellation got us here; the drain itself must run to its end.
  co_await asio::this_coro::reset_cancellation_state(asio::disable_cancellation());
  auto drain = [state]() { return state->drain(); };
  co_await asio::co_spawn(state->strand, drain, asio::use_awaitable);
}

}  // namespace rg::op
