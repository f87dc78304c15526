// Tests of the HTTP transport against the scriptable test server: keep-alive reuse, the pool cap,
// timeouts, cancellation, streaming and truncated bodies, replay on a stale connection.
#include "client/transport/transport.hpp"

#include <doctest/doctest.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <thread>

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

Deadline in_seconds(int seconds) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

HttpRequest get(std::string target) { return HttpRequest{"GET", std::move(target), {}, {}}; }

asio::awaitable<void> answer_ok(ServerSession& session, ServerRequest request) {
  co_await session.respond(200, "{\"path\":\"" + request.target + "\"}");
}

// What a request failed with: its TransportErrorKind, via the exception.
template <class Awaitable>
TransportErrorKind failure_of(asio::io_context& io, Awaitable task) {
  try {
    run(io, std::move(task));
  } catch (const TransportError& error) {
    return error.kind();
  }
  FAIL("the request did not fail");
  return TransportErrorKind::kProtocol;
}

}  // namespace

TEST_CASE("transport: a GET carries Host and User-Agent and returns status, headers, body") {
  asio::io_context io;
  ServerRequest seen;
  TestServer server(io,
                    [&](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
                      seen = request;
                      HttpHeaders headers{{"X-Test", "yes"}, {"Content-Type", "text/plain"}};
                      co_await session.respond(200, "hello", std::move(headers));
                    });
  Transport transport(config_for(server));
  const auto request = get("/api/v1/pods?limit=5");
  const auto response = run(io, transport.round_trip(request, in_seconds(10), true));
  CHECK(response.status == 200);
  CHECK(response.body == "hello");
  CHECK(response.header("x-test") == "yes");
  CHECK(seen.method == "GET");
  CHECK(seen.target == "/api/v1/pods?limit=5");
  CHECK(seen.header("User-Agent").starts_with("replica-guard/"));
  CHECK(seen.header("Host") == server.url().substr(std::string("http://").size()));
  CHECK(seen.header("Accept-Encoding").empty());
}

TEST_CASE("transport: sequential requests reuse one keep-alive connection") {
  asio::io_context io;
  TestServer server(io, answer_ok);
  Transport transport(config_for(server));
  for (int i = 0; i < 3; ++i) {
    const auto request = get("/r" + std::to_string(i));
    CHECK(run(io, transport.round_trip(request, in_seconds(10), true)).body ==
          "{\"path\":\"/r" + std::to_string(i) + "\"}");
  }
  CHECK(server.connections_accepted() == 1);
  CHECK(transport.stats().open == 1);
  CHECK(transport.stats().idle == 1);
}

TEST_CASE("transport: beyond the cap requests wait for a free connection") {
  asio::io_context io;
  TestServer server(io, answer_ok);
  Transport transport(config_for(server), TransportOptions{.max_connections = 2});
  int completed = 0;
  const auto request = get("/x");
  for (int i = 0; i < 6; ++i) {
    asio::co_spawn(io, transport.round_trip(request, in_seconds(10), true),
                   [&](std::exception_ptr error, HttpResponse response) {
                     CHECK_FALSE(error);
                     CHECK(response.status == 200);
                     ++completed;
                   });
  }
  run_until(io, [&] { return transport.stats().waiting == 4; });
  run_until(io, [&] { return completed == 6; });
  CHECK(server.connections_accepted() == 2);
  CHECK(server.requests() == 6);
  CHECK(transport.stats().open == 2);
}

TEST_CASE("transport: a silent server hits the deadline and the connection is closed") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));
  const auto request = get("/slow");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  CHECK(failure_of(io, transport.round_trip(request, deadline, true)) ==
        TransportErrorKind::kTimeout);
  run_until(io, [&] { return server.connections_closed_by_client() == 1; });
  CHECK(transport.stats().open == 0);
}

TEST_CASE("transport: cancelling the calling coroutine closes its socket at once") {
  asio::io_context io;
  asio::cancellation_signal cancel;
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    cancel.emit(asio::cancellation_type::terminal);  // the request has arrived: cancel it
    co_await session.wait_for_close();
  });
  Transport transport(config_for(server));
  const auto request = get("/hang");
  std::exception_ptr failure;
  bool finished = false;
  asio::co_spawn(
      io, transport.round_trip(request, kNoDeadline, true),
      asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr error, HttpResponse) {
        failure = error;
        finished = true;
      }));
  run_until(io, [&] { return finished && server.connections_closed_by_client() == 1; });
  REQUIRE(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kCancelled);
  }
  CHECK(transport.stats().open == 0);
}

TEST_CASE("transport: a chunked body is delivered piece by piece as it arrives") {
  asio::io_context io;
  asio::steady_timer client_saw_first_piece(io, std::chrono::steady_clock::time_point::max());
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\n{\"a\":\r\n");
    boost::system::error_code ignored;
    co_await client_saw_first_piece.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    // The rest in many tiny chunks, one per write, then the terminating chunk.
    static constexpr const char* kPieces[] = {"1\r\n1\r\n",     "2\r\n}\n\r\n", "3\r\n{\"b\r\n",
                                              "4\r\n\":2}\r\n", "1\r\n\n\r\n",  "0\r\n\r\n"};
    for (const char* piece : kPieces) {
      co_await session.write_raw(piece);
    }
  });
  Transport transport(config_for(server));
  const auto request = get("/watch");
  auto reader = run(io, transport.send(request, in_seconds(10), true, ConnectionKind::kDedicated));
  CHECK(reader.status() == 200);
  CHECK(reader.header("Transfer-Encoding") == "chunked");
  const auto first = run(io, reader.read_some());
  CHECK(first == "{\"a\":");
  client_saw_first_piece.cancel();
  std::string rest;
  int pieces = 0;
  for (;;) {
    const auto piece = run(io, reader.read_some());
    if (piece.empty()) break;
    rest += piece;
    ++pieces;
  }
  CHECK(rest == "1}\n{\"b\":2}\n");
  CHECK(pieces >= 1);
  CHECK(reader.done());
  CHECK(run(io, reader.read_some()).empty());
  CHECK(transport.stats().open == 0);  // dedicated: never counted in the pool
}

TEST_CASE("transport: a chunked body cut off before its last chunk is an error") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "a\r\n{\"type\":\"A\r\n6\r\nDDED\"");
    session.close();
  });
  Transport transport(config_for(server));
  const auto request = get("/watch");
  auto reader = run(io, transport.send(request, in_seconds(10), true, ConnectionKind::kDedicated));
  std::string received;
  const auto drain = [&]() -> asio::awaitable<void> {
    for (;;) {
      const auto piece = co_await reader.read_some();
      if (piece.empty()) co_return;
      received += piece;
    }
  };
  const auto kind = failure_of(io, drain());
  CHECK(kind == TransportErrorKind::kTruncatedBody);
  CHECK(received.starts_with("{\"type\":\"A"));
}

TEST_CASE("transport: a Content-Length body cut short is an error, not a short success") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"items\":[");
    session.close();
  });
  Transport transport(config_for(server));
  const auto request = get("/api/v1/pods");
  CHECK(failure_of(io, transport.round_trip(request, in_seconds(10), true)) ==
        TransportErrorKind::kTruncatedBody);
}

TEST_CASE("transport: a stale keep-alive connection is replayed once for replayable requests") {
  asio::io_context io;
  // The first connection answers one request, then closes when the next one arrives on it, as
  // a server whose keep-alive timer just fired does.
  TestServer server(io, [](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
    if (session.id() == 1 && request.target != "/first") {
      session.close();
      co_return;
    }
    co_await session.respond(200, "served on " + std::to_string(session.id()));
  });
  Transport transport(config_for(server));
  const auto first = get("/first");
  CHECK(run(io, transport.round_trip(first, in_seconds(10), true)).body == "served on 1");

  SUBCASE("GET is replayed on a new connection") {
    const auto second = get("/second");
    CHECK(run(io, transport.round_trip(second, in_seconds(10), true)).body == "served on 2");
    CHECK(server.connections_accepted() == 2);
  }
  SUBCASE("POST is not replayed") {
    const HttpRequest post{"POST", "/create", {{"Content-Type", "application/json"}}, "{}"};
    CHECK(failure_of(io, transport.round_trip(post, in_seconds(10), false)) ==
          TransportErrorKind::kConnectionReset);
    CHECK(server.connections_accepted() == 1);
  }
}

TEST_CASE("transport: connection refused is a connect error naming the server") {
  asio::io_context io;
  std::string url;
  {
    asio::ip::tcp::acceptor closed(io, {asio::ip::make_address("127.0.0.1"), 0});
    url = "http://127.0.0.1:" + std::to_string(closed.local_endpoint().port());
  }
  RestConfig config;
  config.host = url;
  Transport transport(config);
  const auto request = get("/");
  try {
    run(io, transport.round_trip(request, in_seconds(10), true));
    FAIL("connected to a closed port");
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kConnect);
    CHECK(std::string(error.what()).find(url.substr(7)) != std::string::npos);
  }
  CHECK(transport.stats().open == 0);
}

TEST_CASE("transport: HEAD responses have no body even with Content-Length") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.write_raw("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
  });
  Transport transport(config_for(server));
  const HttpRequest head{"HEAD", "/healthz", {}, {}};
  const auto response = run(io, transport.round_trip(head, in_seconds(10), true));
  CHECK(response.status == 200);
  CHECK(response.body.empty());
  CHECK(transport.stats().idle == 1);
}

TEST_CASE("transport: an idle connection the server closed is noticed before reuse") {
  asio::io_context io;
  bool closed = false;
  TestServer server(io,
                    [&](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
                      co_await session.respond(200, "on " + std::to_string(session.id()));
                      if (request.target == "/then-close") {
                        session.close();
                        closed = true;
                      }
                    });
  Transport transport(config_for(server));
  const auto first = get("/then-close");
  CHECK(run(io, transport.round_trip(first, in_seconds(10), true)).body == "on 1");
  run_until(io, [&] { return closed; });
  // Not replayable, so only the idle check can save it: it must not be sent on the dead one.
  const HttpRequest post{"POST", "/create", {}, "{}"};
  CHECK(run(io, transport.round_trip(post, in_seconds(10), false)).body == "on 2");
}

TEST_CASE("transport: a response with Connection: close is not reused") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    HttpHeaders headers{{"Connection", "close"}};
    co_await session.respond(200, "bye", std::move(headers));
    session.close();
  });
  Transport transport(config_for(server));
  const auto request = get("/");
  for (int i = 0; i < 2; ++i) {
    CHECK(run(io, transport.round_trip(request, in_seconds(10), true)).body == "bye");
  }
  CHECK(server.connections_accepted() == 2);
  CHECK(transport.stats().open == 0);
}

TEST_CASE("transport: waiting for a pooled connection honours the deadline and cancellation") {
  asio::io_context io;
  bool first_arrived = false;
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    first_arrived = true;
    co_await session.wait_for_close();  // holds the only connection
  });
  Transport transport(config_for(server), TransportOptions{.max_connections = 1});
  const auto request = get("/");
  asio::cancellation_signal cancel_first;
  bool first_done = false;
  asio::co_spawn(
      io, transport.round_trip(request, kNoDeadline, true),
      asio::bind_cancellation_slot(cancel_first.slot(),
                                   [&](std::exception_ptr, HttpResponse) { first_done = true; }));
  run_until(io, [&] { return first_arrived; });

  SUBCASE("deadline") {
    const auto soon = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    try {
      run(io, transport.round_trip(request, soon, true));
      FAIL("got a connection beyond the cap");
    } catch (const TransportError& error) {
      CHECK(error.kind() == TransportErrorKind::kTimeout);
      CHECK(std::string(error.what()).find("waiting for a free connection") != std::string::npos);
    }
  }
  SUBCASE("cancellation") {
    asio::cancellation_signal cancel_second;
    std::exception_ptr second_error;
    bool second_done = false;
    asio::co_spawn(io, transport.round_trip(request, kNoDeadline, true),
                   asio::bind_cancellation_slot(cancel_second.slot(),
                                                [&](std::exception_ptr error, HttpResponse) {
                                                  second_error = error;
                                                  second_done = true;
                                                }));
    run_until(io, [&] { return transport.stats().waiting == 1; });
    cancel_second.emit(asio::cancellation_type::terminal);
    run_until(io, [&] { return second_done; });
    REQUIRE(second_error);
    try {
      std::rethrow_exception(second_error);
    } catch (const TransportError& error) {
      CHECK(error.kind() == TransportErrorKind::kCancelled);
    }
  }
  CHECK(transport.stats().waiting == 0);
  cancel_first.emit(asio::cancellation_type::terminal);
  run_until(io, [&] { return first_done && server.connections_closed_by_client() == 1; });
  CHECK(transport.stats().open == 0);
}

TEST_CASE("transport: coroutines on several threads share the capped pool safely") {
  asio::io_context server_io;
  TestServer server(server_io, answer_ok);
  std::thread server_thread([&] { server_io.run(); });
  {
    asio::thread_pool threads(3);  // outlives the transport: its sockets live on these threads
    Transport transport(config_for(server), TransportOptions{.max_connections = 3});
    std::atomic<int> succeeded{0};
    std::atomic<int> failed{0};
    const auto request = get("/x");
    for (int i = 0; i < 60; ++i) {
      asio::co_spawn(threads, transport.round_trip(request, in_seconds(60), true),
                     [&](std::exception_ptr error, HttpResponse response) {
                       ++(error || response.status != 200 ? failed : succeeded);
                     });
    }
    threads.join();
    CHECK(succeeded == 60);
    CHECK(failed == 0);
    CHECK(transport.stats().open <= 3);
    CHECK(transport.stats().waiting == 0);
  }
  server_io.stop();
  server_thread.join();
  CHECK(server.requests() == 60);
  CHECK(server.connections_accepted() <= 3);
}
