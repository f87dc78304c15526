// informer_watch_bench: end-to-end watch throughput of a SharedIndexInformer<Pod> -- events per
// second from the socket to a handler: HTTP chunked body -> watch decoder -> Reflector ->
// DeltaFIFO -> Indexer -> handler -- for realistic kubelet-managed pods (sim/realistic_pod.hpp,
// ~4.5 KB of JSON each), next to a bare boost::json::parse of every event line of the same bytes.
//
// The API server is a stand-in that costs next to nothing: it answers the LIST with an empty
// list and the WATCH with one pre-encoded chunked body (ADDED for every pod, then MODIFIED
// rounds, each with a new resourceVersion), written from memory on its own thread. So the figure
// is the informer's, not a server's.
//
// Usage: informer_watch_bench [pods] [rounds]   (default 10000 pods, 5 MODIFIED rounds)
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/process_stats.hpp"
#include "bench/seed_pods.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "informer/shared_index_informer.hpp"
#include "sim/realistic_pod.hpp"

namespace asio = boost::asio;
using asio::ip::tcp;
using rg::bench::Clock;
using rg::bench::seconds_since;
using rg::client::Pod;

namespace {

// The watch body: one JSON event per line, ADDED for each pod then `rounds` MODIFIED rounds.
std::string watch_events(std::size_t pods, std::size_t rounds) {
  std::vector<boost::json::object> objects;
  objects.reserve(pods);
  for (std::size_t i = 0; i < pods; ++i) {
    auto spec = rg::bench::fleet_pod_spec(i);
    spec.namespace_ = "ns-" + std::to_string(i % 20);
    objects.push_back(rg::sim::realistic_pod(spec));
  }
  std::string body;
  std::size_t resource_version = 1;
  for (std::size_t round = 0; round <= rounds; ++round) {
    for (auto& object : objects) {
      object["metadata"].as_object()["resourceVersion"] = std::to_string(++resource_version);
      body.append(round == 0 ? R"({"type":"ADDED","object":)" : R"({"type":"MODIFIED","object":)");
      body.append(boost::json::serialize(object)).append("}\n");
    }
  }
  return body;
}

// `body` as an HTTP/1.1 chunked response, in 64 KiB chunks, without the final empty chunk: the
// stream stays open, as a watch does.
std::string chunked_response(const std::string& body) {
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  constexpr std::size_t kChunk = 64 * 1024;
  char size[32];
  for (std::size_t at = 0; at < body.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, body.size() - at);
    std::snprintf(size, sizeof size, "%zx\r\n", n);
    out.append(size).append(body, at, n).append("\r\n");
  }
  return out;
}

// The stand-in API server: LIST -> an empty PodList at resourceVersion 1; WATCH -> the body.
class FakeApiServer {
 public:
  explicit FakeApiServer(std::string watch_response)
      : watch_response_(std::move(watch_response)),
        acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        accepting_([this] { accept_loop(); }) {}

  ~FakeApiServer() {
    stopping_ = true;
    {
      tcp::socket wake(io_);  // unblocks accept()
      boost::system::error_code ignored;
      wake.connect(acceptor_.local_endpoint(), ignored);
    }
    accepting_.join();
    for (auto& connection : connections_) connection.join();
  }

  std::string address() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }

 private:
  void accept_loop() {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(io_);
      boost::system::error_code error;
      acceptor_.accept(*socket, error);
      if (error || stopping_) return;
      connections_.emplace_back([this, socket] { serve(*socket); });
    }
  }

  // Answers requests until the client closes the connection.
  void serve(tcp::socket& socket) {
    static const std::string kList =
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]})";
    const std::string list_response =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(kList.size()) + "\r\n\r\n" + kList;
    asio::streambuf buffer;
    boost::system::error_code error;
    for (;;) {
      const std::size_t n = asio::read_until(socket, buffer, "\r\n\r\n", error);
      if (error) return;
      std::string head(asio::buffers_begin(buffer.data()), asio::buffers_begin(buffer.data()) + n);
      buffer.consume(n);
      const bool watch =
          head.find("watch=true") != std::string::npos || head.find("watch=1") != std::string::npos;
      asio::write(socket, asio::buffer(watch ? watch_response_ : list_response), error);
      if (error) return;
    }
  }

  std::string watch_response_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stopping_ = false;
  std::vector<std::thread> connections_;  // only touched by the accepting thread until joined
  std::thread accepting_;
};

// Bare boost::json::parse of every event line: the reference rate.
void bare_parse(const std::string& body, std::size_t events) {
  const auto start = Clock::now();
  std::size_t parsed = 0;
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t end = body.find('\n', at);
    boost::json::value event = boost::json::parse(std::string_view(body).substr(at, end - at));
    parsed += event.is_object();
    at = end + 1;
  }
  const double took = seconds_since(start);
  if (parsed != events) std::fprintf(stderr, "parsed %zu events, expected %zu\n", parsed, events);
  std::printf(
      "  bare boost::json::parse per event: %zu events, %.1f MB in %.3f s = %.0f MB/s, %.0f "
      "events/s\n",
      events, body.size() / 1e6, took, body.size() / 1e6 / took, events / took);
}

void informer_watch(const std::string& address, std::size_t events, std::size_t bytes) {
  asio::io_context io;
  rg::client::RestConfig config;
  config.host = address;
  config.timeout = std::chrono::minutes(10);
  rg::client::RestClient client(config);

  rg::informer::SharedIndexInformer<Pod>::Options options;
  options.scope = {rg::client::resources::pods(), "", ""};
  options.name = "pods";
  options.reflector.use_watch_list = false;  // LIST (empty) then WATCH: every object is an event
  rg::informer::SharedIndexInformer<Pod> informer(client, options);
  std::size_t handled = 0;
  informer.add_event_handler("count", {.on_add = [&](const auto&, bool) { ++handled; },
                                       .on_update = [&](const auto&, const auto&) { ++handled; },
                                       .on_delete = [&](const auto&) { ++handled; }});
  asio::cancellation_signal stop;
  bool ended = false;
  const auto start = Clock::now();
  asio::co_spawn(
      io, informer.run(),
      asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { ended = true; }));
  while (handled < events && !ended) io.run_one();
  const double took = seconds_since(start);
  stop.emit(asio::cancellation_type::terminal);
  while (!ended) io.run_one();
  if (handled < events) {
    std::fprintf(stderr, "the informer stopped after %zu of %zu events\n", handled, events);
    std::exit(1);
  }
  std::printf(
      "  informer, socket -> handler: %zu events, %.1f MB in %.3f s = %.0f MB/s, %.0f "
      "events/s (%zu pods cached)\n",
      events, bytes / 1e6, took, bytes / 1e6 / took, events / took, informer.indexer().size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pods = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000;
  const std::size_t rounds = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 5;
  if (pods == 0) {
    std::fprintf(stderr, "usage: informer_watch_bench [pods] [rounds]  (pods > 0)\n");
    return 2;
  }
  const std::size_t events = pods * (rounds + 1);
  const std::string body = watch_events(pods, rounds);
  std::printf("%zu realistic pods, %zu watch events (%.0f bytes/event)\n", pods, events,
              static_cast<double>(body.size()) / static_cast<double>(events));
  bare_parse(body, events);
  FakeApiServer server(chunked_response(body));
  informer_watch(server.address(), events, body.size());
  return 0;
}
