// Tests of what the transport writes and how one request's deadline spans it: the request head
// it builds (refusing what would not be one line of HTTP), the TransportTracer's view of the
// wire, and the connection's one deadline timer across requests.
#include <doctest/doctest.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "client/transport/transport.hpp"
#include "client/transport/transport_error.hpp"
#include "test/client/transport/test_server.hpp"

namespace asio = boost::asio;
using namespace rg::client;
using rg::test::config_for;
using rg::test::run;
using rg::test::ServerRequest;
using rg::test::ServerSession;
using rg::test::TestServer;

namespace {

Deadline in_ms(int ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

class RecordingTracer final : public TransportTracer {
 public:
  void on_request_written(std::string_view method, std::string_view target) override {
    std::lock_guard lock(mutex);
    seen.push_back("written " + std::string(method) + " " + std::string(target));
  }
  void on_body_read(std::string_view target, std::string_view piece) override {
    std::lock_guard lock(mutex);
    seen.push_back("read " + std::string(target) + " " + std::string(piece));
  }
  std::mutex mutex;
  std::vector<std::string> seen;
};

}  // namespace

TEST_CASE("request wire: head fields, Content-Length for bodies and for body methods") {
  asio::io_context io;
  std::vector<ServerRequest> seen;
  TestServer server(io,
                    [&](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
                      seen.push_back(request);
                      co_await session.respond(200, "{}");
                    });
  Transport transport(config_for(server));
  const HttpRequest patch{
      "PATCH", "/apis/apps/v1/x?y=1", {{"Content-Type", "application/merge-patch+json"}}, "{}"};
  const HttpRequest empty_post{"POST", "/p", {}, {}};
  const HttpRequest get{"GET", "/g", {{"Accept", "application/json"}}, {}};
  for (const auto* request : {&patch, &empty_post, &get})
    CHECK(run(io, transport.round_trip(*request, in_ms(10'000), false)).status == 200);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].method == "PATCH");
  CHECK(seen[0].target == "/apis/apps/v1/x?y=1");
  CHECK(seen[0].header("Content-Type") == "application/merge-patch+json");
  CHECK(seen[0].header("Content-Length") == "2");
  CHECK(seen[0].body == "{}");
  CHECK(seen[1].header("Content-Length") == "0");
  CHECK(seen[2].header("Content-Length").empty());
  CHECK(seen[2].header("Accept") == "application/json");
  CHECK(server.connections_accepted() == 1);
}

TEST_CASE("request wire: a method, target or field that is not one line of HTTP is refused") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.respond(200, "{}");
  });
  Transport transport(config_for(server));
  const std::vector<HttpRequest> bad = {
      {"GET", "/x", {{"Authorization", "Bearer t\r\nX-Injected: 1"}}, {}},
      {"GET", "/x", {{"Bad Name", "v"}}, {}},
      {"GE T", "/x", {}, {}},
      {"GET", "/x HTTP/1.1\r\nX: y", {}, {}},
      {"GET", "", {}, {}},
  };
  for (const auto& request : bad) {
    CHECK_THROWS_AS(run(io, transport.round_trip(request, in_ms(10'000), true)),
                    std::invalid_argument);
  }
  CHECK(server.requests() == 0);
}

TEST_CASE("request wire: the tracer sees each request written and each body piece read") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.respond(200, "hello");
  });
  const auto tracer = std::make_shared<RecordingTracer>();
  Transport transport(config_for(server), TransportOptions{.tracer = tracer});
  const HttpRequest request{"PUT", "/t?a=b", {}, "body"};
  CHECK(run(io, transport.round_trip(request, in_ms(10'000), false)).body == "hello");
  CHECK(tracer->seen == std::vector<std::string>{"written PUT /t?a=b", "read /t?a=b hello"});
}

TEST_CASE("request wire: one deadline timer per connection, moved earlier or later per request") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
    if (request.target == "/silent") {
      co_await session.wait_for_close();
    } else {
      co_await session.respond(200, "ok");
    }
  });
  Transport transport(config_for(server));
  const HttpRequest fast{"GET", "/fast", {}, {}};
  const HttpRequest silent{"GET", "/silent", {}, {}};
  // A short deadline that passes while the connection is idle in the pool does not end it.
  CHECK(run(io, transport.round_trip(fast, in_ms(50), true)).status == 200);
  auto idle = [&]() -> asio::awaitable<void> {
    asio::steady_timer past_it(io, std::chrono::milliseconds(100));
    co_await past_it.async_wait(asio::use_awaitable);
  };
  run(io, idle());
  CHECK(run(io, transport.round_trip(fast, in_ms(60'000), true)).status == 200);
  CHECK(server.connections_accepted() == 1);
  // A request's deadline earlier than the last one's is kept.
  try {
    run(io, transport.round_trip(silent, in_ms(100), true));
    FAIL("a silent server answered");
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kTimeout);
  }
  CHECK(server.connections_accepted() == 1);
  CHECK(transport.stats().open == 0);
}

TEST_CASE("request wire: a connection idle in the pool leaves no timer waiting") {
  // The server runs on its own thread, so the client's io_context has nothing but the request.
  asio::io_context server_io;
  TestServer server(server_io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.respond(200, "ok");
  });
  auto serving = asio::make_work_guard(server_io);
  std::thread server_thread([&] { server_io.run(); });

  asio::io_context io;
  Transport transport(config_for(server));
  int status = 0;
  auto request = [&]() -> asio::awaitable<void> {
    const HttpRequest get{"GET", "/", {}, {}};
    status = (co_await transport.round_trip(get, in_ms(3'600'000), true)).status;
  };
  // run() returns once the request is done: a timer left waiting for the hour-long deadline
  // would hold it (and a process's shutdown) until the suite's timeout fails the test.
  rg::test::run(io, request());
  io.restart();
  io.run();
  CHECK(status == 200);
  CHECK(transport.stats().idle == 1);

  serving.reset();
  server_io.stop();
  server_thread.join();
}

TEST_CASE("request wire: before_write can stop a request before a byte leaves; User-Agent set") {
  asio::io_context io;
  std::vector<ServerRequest> seen;
  TestServer server(io,
                    [&](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
                      seen.push_back(request);
                      co_await session.respond(200, "{}");
                    });
  std::vector<std::string> asked;
  TransportOptions options;
  options.user_agent = "replica-guard/9.9 (replica-a)";
  options.before_write = [&](const HttpRequest& request) {
    asked.push_back(request.method + " " + request.target);
    if (request.method == "PATCH") throw std::runtime_error("fenced");
  };
  Transport transport(config_for(server), options);
  const HttpRequest get{"GET", "/g", {}, {}};
  const HttpRequest patch{"PATCH", "/p", {{"Content-Type", "application/merge-patch+json"}}, "{}"};
  CHECK(run(io, transport.round_trip(get, in_ms(10'000), false)).status == 200);
  CHECK_THROWS_WITH_AS(run(io, transport.round_trip(patch, in_ms(10'000), false)), "fenced",
                       std::runtime_error);
  CHECK(run(io, transport.round_trip(get, in_ms(10'000), false)).status == 200);
  CHECK(asked == std::vector<std::string>{"GET /g", "PATCH /p", "GET /g"});
  REQUIRE(seen.size() == 2);  // the PATCH never reached the server
  CHECK(seen[0].header("User-Agent") == "replica-guard/9.9 (replica-a)");
  CHECK(seen[1].method == "GET");
  TransportOptions bad;
  bad.user_agent = "x\r\nX-Injected: 1";
  CHECK_THROWS_AS(Transport(config_for(server), bad), std::invalid_argument);
}
