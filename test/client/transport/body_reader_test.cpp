// Tests of BodyReader against the scriptable test server: the body's deadline (one watchdog per
// body, movable), cancellation mid-body, bodies that end at the close, invalid chunk framing,
// large streamed bodies.
#include "client/transport/body_reader.hpp"

#include <doctest/doctest.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <string>

#include "client/transport/transport.hpp"
#include "client/transport/transport_error.hpp"
#include "test/client/transport/test_server.hpp"

namespace asio = boost::asio;
using namespace rg::client;
using rg::test::config_for;
using rg::test::run;
using rg::test::run_until;
using rg::test::ServerRequest;
using rg::test::ServerSession;
using rg::test::TestServer;

namespace {

using Clock = std::chrono::steady_clock;

const HttpRequest kWatch{"GET", "/watch", {}, {}};

constexpr std::string_view kChunkedHeader = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

// Reads the body to its end; the TransportError kind it failed with, if any.
asio::awaitable<std::string> drain(BodyReader& reader) {
  std::string body;
  for (;;) {
    const auto piece = co_await reader.read_some();
    if (piece.empty()) co_return body;
    body += piece;
  }
}

std::optional<TransportErrorKind> failure_of(asio::io_context& io, BodyReader& reader) {
  try {
    run(io, drain(reader));
  } catch (const TransportError& error) {
    return error.kind();
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("body reader: a body that stalls past its deadline times out and is closed") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(std::string(kChunkedHeader) + "3\r\nabc\r\n");
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));
  auto reader = run(io, transport.send(kWatch, Clock::now() + std::chrono::milliseconds(200), true,
                                       ConnectionKind::kDedicated));
  CHECK(failure_of(io, reader) == TransportErrorKind::kTimeout);
  CHECK(reader.done());
  run_until(io, [&] { return server.connections_closed_by_client() == 1; });
}

TEST_CASE("body reader: the deadline can be moved earlier and later") {
  asio::io_context io;
  asio::steady_timer release_rest(io, Clock::time_point::max());
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(std::string(kChunkedHeader) + "3\r\nabc\r\n");
    boost::system::error_code ignored;
    co_await release_rest.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    co_await session.write_raw("3\r\ndef\r\n0\r\n\r\n");
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));

  SUBCASE("earlier: a silent stream fails at the new deadline") {
    auto reader = run(io, transport.send(kWatch, Clock::now() + std::chrono::hours(1), true,
                                         ConnectionKind::kDedicated));
    reader.set_deadline(Clock::now() + std::chrono::milliseconds(100));
    CHECK(failure_of(io, reader) == TransportErrorKind::kTimeout);
  }
  SUBCASE("later: the first deadline passes without effect") {
    const auto first_deadline = Clock::now() + std::chrono::milliseconds(100);
    auto reader = run(io, transport.send(kWatch, first_deadline, true, ConnectionKind::kDedicated));
    reader.set_deadline(Clock::now() + std::chrono::hours(1));
    CHECK(run(io, reader.read_some()) == "abc");
    // The rest comes only once the first deadline is well past.
    asio::steady_timer past_first(io, first_deadline + std::chrono::milliseconds(200));
    auto wait_past_first = [&]() -> asio::awaitable<void> {
      co_await past_first.async_wait(asio::use_awaitable);
      release_rest.cancel();
    };
    run(io, wait_past_first());
    CHECK(run(io, drain(reader)) == "def");
    CHECK(reader.done());
  }
}

TEST_CASE("body reader: a body without length or chunking ends when the server closes") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of ");
    co_await session.write_raw("it");
    session.close();
  });
  Transport transport(config_for(server));
  const auto response =
      run(io, transport.round_trip(kWatch, Clock::now() + std::chrono::hours(1), true));
  CHECK(response.body == "all of it");
  CHECK(transport.stats().open == 0);
}

TEST_CASE("body reader: invalid chunk framing is a protocol error naming the server") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(std::string(kChunkedHeader) + "3\r\nabc\r\nzz\r\n");
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));
  auto reader = run(io, transport.send(kWatch, Clock::now() + std::chrono::hours(1), true,
                                       ConnectionKind::kDedicated));
  try {
    run(io, drain(reader));
    FAIL("invalid framing was accepted");
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kProtocol);
    CHECK(std::string(error.what()).find("127.0.0.1") != std::string::npos);
  }
  run_until(io, [&] { return server.connections_closed_by_client() == 1; });
}

TEST_CASE("body reader: a large body in many chunks arrives whole, then the connection is reused") {
  asio::io_context io;
  std::string expected;
  std::string wire(kChunkedHeader);
  for (int i = 0; i < 2000; ++i) {
    const std::string event = "{\"event\":" + std::to_string(i) + ",\"pad\":\"" +
                              std::string(static_cast<std::size_t>(i % 300), 'x') + "\"}\n";
    expected += event;
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", event.size());
    wire.append(size).append(event).append("\r\n");
  }
  wire += "0\r\n\r\n";
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(wire);
  });
  Transport transport(config_for(server));
  for (int round = 0; round < 2; ++round) {
    const auto response =
        run(io, transport.round_trip(kWatch, Clock::now() + std::chrono::hours(1), true));
    CHECK(response.body == expected);
  }
  CHECK(server.connections_accepted() == 1);
}

TEST_CASE("body reader: cancelling a read in the middle of a body closes the connection at once") {
  asio::io_context io;
  asio::cancellation_signal cancel;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(std::string(kChunkedHeader) + "3\r\nabc\r\n");
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));
  auto reader = run(io, transport.send(kWatch, Clock::now() + std::chrono::hours(1), true,
                                       ConnectionKind::kDedicated));
  CHECK(run(io, reader.read_some()) == "abc");
  std::exception_ptr failure;
  bool finished = false;
  asio::co_spawn(
      io, reader.read_some(),
      asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr error, std::string_view) {
        failure = std::move(error);
        finished = true;
      }));
  io.poll();  // the read is now waiting for bytes that never come
  CHECK_FALSE(finished);
  cancel.emit(asio::cancellation_type::terminal);
  run_until(io, [&] { return finished && server.connections_closed_by_client() == 1; });
  REQUIRE(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kCancelled);
  }
  CHECK(reader.done());
}
