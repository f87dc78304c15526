// HttpServer: what a handler throws before its response starts is answered as a Status (the
// ApiError's, or a 500 InternalError); after it started, the connection ends instead. Complete
// responses carry the header fields Beast's set() would, and a keep-alive connection's requests
// do not see each other's headers, parameters or bodies. Accepted sockets send without Nagle and
// keep little unsent.
#include <doctest/doctest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "sim/api_error.hpp"
#include "sim/http_server.hpp"
#include "test/sim/http_client.hpp"

namespace {

boost::asio::awaitable<void> throwing_handler(rg::sim::HttpRequest& request,
                                              rg::sim::ResponseStream& stream) {
  if (request.path == "/api-error") throw rg::sim::errors::bad_request("no such thing here");
  if (request.path == "/retry") throw rg::sim::errors::too_many_requests("slow down", 3);
  if (request.path == "/bug") throw std::logic_error("a handler bug");
  if (request.path == "/echo") {
    rg::sim::HttpResponse response;
    response.headers = {{"X-Test", "first"}, {"Content-Type", "text/plain"}, {"x-test", "second"}};
    response.body = request.method + " " + std::string(request.header("x-echo")) + " " +
                    std::string(request.param("q").value_or("-")) + " " + request.body;
    co_await stream.send(response);
    co_return;
  }
  const rg::sim::Headers headers = {{"Content-Type", "application/json"}};
  co_await stream.begin(200, headers);
  throw rg::sim::errors::bad_request("too late for a Status");
}

// An HttpServer with throwing_handler on an ephemeral port, served by a background thread.
class ThrowingServer {
 public:
  ThrowingServer() : server_(io_, {}, throwing_handler) {
    server_.start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~ThrowingServer() {
    server_.stop();
    work_.reset();
    io_.stop();
    thread_.join();
  }
  unsigned short port() const { return server_.port(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  rg::sim::HttpServer server_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("an ApiError thrown before the response starts is answered as its Status") {
  ThrowingServer server;
  auto reply = rg::sim::test::call(server.port(), "GET", "/api-error");
  CHECK(reply.status == 400);
  CHECK(reply.header("content-type") == "application/json");
  auto status = reply.json();
  CHECK(status.at("kind") == "Status");
  CHECK(status.at("reason") == "BadRequest");
  CHECK(status.at("message") == "no such thing here");
  CHECK(status.at("code") == 400);

  auto retry = rg::sim::test::call(server.port(), "GET", "/retry");
  CHECK(retry.status == 429);
  CHECK(retry.header("retry-after") == "3");
}

TEST_CASE("any other exception before the response starts is a 500 InternalError Status") {
  ThrowingServer server;
  auto reply = rg::sim::test::call(server.port(), "GET", "/bug");
  CHECK(reply.status == 500);
  CHECK(reply.json().at("reason") == "InternalError");
  CHECK(std::string(reply.json().at("message").as_string()).find("a handler bug") !=
        std::string::npos);
}

TEST_CASE("an error after the response started ends the connection, not a second response") {
  ThrowingServer server;
  CHECK_THROWS_AS(rg::sim::test::call(server.port(), "GET", "/late"), boost::system::system_error);
  // The server goes on serving.
  CHECK(rg::sim::test::call(server.port(), "GET", "/api-error").status == 400);
}

TEST_CASE("keep-alive requests each see only their own headers, and a later header replaces one") {
  ThrowingServer server;
  boost::asio::io_context io;
  rg::sim::test::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
  auto first = rg::sim::test::exchange(socket, "POST", "/echo?q=1", "one", {{"X-Echo", "hello"}});
  CHECK(first.status == 200);
  CHECK(first.body == "POST hello 1 one");
  CHECK(first.header("server") == "kube-sim");
  CHECK(first.header("x-test") == "second");
  CHECK(first.header("content-type") == "text/plain");
  CHECK(first.header("content-length") == std::to_string(first.body.size()));
  CHECK(first.header("connection").empty());
  auto second = rg::sim::test::exchange(socket, "PUT", "/echo", "", {{"Connection", "close"}});
  CHECK(second.body == "PUT  - ");
  CHECK(second.header("connection") == "close");
}

namespace {

// The socket of this process bound to 127.0.0.1:`local_port` and connected to `peer_port`: the
// server's end of a connection when the server runs in-process. -1 if there is none.
int accepted_socket(unsigned short local_port, unsigned short peer_port) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISSOCK(info.st_mode)) continue;
    sockaddr_in local{}, peer{};
    socklen_t local_size = sizeof local, peer_size = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 ||
        local.sin_family != AF_INET) {
      continue;
    }
    if (ntohs(local.sin_port) == local_port && ntohs(peer.sin_port) == peer_port) return fd;
  }
  return -1;
}

int int_option(int fd, int level, int name) {
  int value = -1;
  socklen_t size = sizeof value;
  REQUIRE(::getsockopt(fd, level, name, &value, &size) == 0);
  return value;
}

}  // namespace

TEST_CASE("an accepted connection sends without Nagle and keeps at most 16 KiB unsent") {
  // What a streaming list's reader pays for depends on it (sim/http_server.cpp): over loopback,
  // bytes left unsent in kube-sim's socket are pushed by the reader's window updates, from the
  // reader's thread.
  ThrowingServer server;
  boost::asio::io_context io;
  rg::sim::test::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
  // A reply means the connection was accepted and set up.
  REQUIRE(rg::sim::test::exchange(socket, "GET", "/echo", "", {}).status == 200);
  const int fd = accepted_socket(server.port(), socket.local_endpoint().port());
  REQUIRE(fd >= 0);
  CHECK(int_option(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT) == 16 * 1024);
  CHECK(int_option(fd, IPPROTO_TCP, TCP_NODELAY) != 0);
}

TEST_CASE("request targets are percent-decoded; broken escapes stay as they are") {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  rg::sim::parse_target(
      "/api/v1/namespaces/a%2Db/pods?fieldSelector=metadata.name%3Dweb%2cx"
      "&labelSelector=a+b&bad=%zz%4&end=%",
      path, query);
  CHECK(path == "/api/v1/namespaces/a-b/pods");
  REQUIRE(query.size() == 4);
  CHECK(query[0].second == "metadata.name=web,x");
  CHECK(query[1].second == "a b");  // '+' is a space in a query, not in a path
  CHECK(query[2].second == "%zz%4");
  CHECK(query[3].second == "%");
  CHECK(rg::sim::url_decode("a+b%20c", false) == "a+b c");
}
