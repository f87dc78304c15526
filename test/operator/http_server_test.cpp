// The operator's HTTP server: routes, 404/405, keep-alive, and a prompt, clean shutdown.
#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

#include "operator/http_server.hpp"

namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using rg::op::HttpReply;
using rg::op::HttpServer;

namespace {

asio::awaitable<http::response<http::string_body>> get(boost::beast::tcp_stream& stream,
                                                       std::string target) {
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "localhost");
  co_await http::async_write(stream, request, asio::use_awaitable);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  co_await http::async_read(stream, buffer, response, asio::use_awaitable);
  co_return response;
}

}  // namespace

TEST_CASE("bind addresses follow controller-runtime's form") {
  CHECK(rg::op::parse_bind_address(":8080") == tcp::endpoint(tcp::v4(), 8080));
  CHECK(rg::op::parse_bind_address("127.0.0.1:0").address().to_string() == "127.0.0.1");
  CHECK(rg::op::parse_bind_address("[::1]:8081").address().is_v6());
  for (const char* bad : {"8080", "localhost:80", ":http", ":70000", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(rg::op::parse_bind_address(bad), std::invalid_argument);
  }
}

TEST_CASE("routes answer, unknown paths 404, a kept-alive client does not block shutdown") {
  asio::io_context io;
  HttpServer server(io.get_executor(), rg::op::parse_bind_address("127.0.0.1:0"));
  std::string seen_query;
  server.route("/healthz", [&](std::string_view query) {
    seen_query = query;
    return HttpReply{200, "text/plain", "ok"};
  });
  asio::cancellation_signal stop;
  bool server_done = false;
  asio::co_spawn(io, server.run(),
                 asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e) {
                   server_done = true;
                   if (e) std::rethrow_exception(e);
                 }));
  std::vector<unsigned> statuses;
  std::string body;
  auto client = [&]() -> asio::awaitable<void> {
    boost::beast::tcp_stream stream(co_await asio::this_coro::executor);
    co_await stream.async_connect(server.local_endpoint(), asio::use_awaitable);
    auto ok = co_await get(stream, "/healthz?verbose");
    statuses.push_back(ok.result_int());
    body = ok.body();
    auto missing = co_await get(stream, "/nope");
    statuses.push_back(missing.result_int());
    // The connection stays open (keep-alive) while the server is told to stop.
    stop.emit(asio::cancellation_type::terminal);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> after;
    boost::system::error_code ec;
    co_await http::async_read(stream, buffer, after, asio::redirect_error(asio::use_awaitable, ec));
    CHECK(ec);  // closed by the server's drain
  };
  asio::co_spawn(io, client, [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io.run();
  CHECK(server_done);
  CHECK(statuses == std::vector<unsigned>{200, 404});
  CHECK(body == "ok");
  CHECK(seen_query == "verbose");
}
