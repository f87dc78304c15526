// informer_watch_bench: end-to-end watch throughput of a SharedIndexInformer<Pod> -- events per
// second from the socket to a handler: HTTP chunked body -> watch decoder -> Reflector ->
// DeltaFIFO -> Indexer -> handler -- for realistic kubelet-managed pods (sim/realistic_pod.hpp,
// ~4.5 KB of JSON each), next to a bare boost::json::parse of every event line of the same bytes
// and the typed WatchDecoder<Pod> alone on them (the target: the informer's events per CPU-second
// at least 60% of the typed decoder's, printed at the end), and next to the typed decoder keeping
// each pod's latest state, as a cache must, and next to that decoder fed by the socket as the
// informer is (through the RestClient, from the same server): what the informer adds beyond the
// last is its machinery's cost; what that adds beyond the decoder alone, the socket's.
//
// The API server is a stand-in that costs next to nothing: it answers the LIST with an empty
// list and the WATCH with one pre-encoded chunked body (ADDED for every pod, then MODIFIED
// rounds, each with a new resourceVersion), written from memory on its own thread. A bare
// socket-drain client (large reads, no parsing) shows how fast it delivers, so the informer
// figure is the informer's, not the server's.
//
// Each case reports wall-clock events/s and events per CPU-second of the thread doing the work
// (the informer runs on one thread), the latter steady on a machine shared with other work.
// The informer's share of each yardstick's rate is the median of the runs' shares, each run's
// informer against the yardstick measured in the same run.
//
// Usage: informer_watch_bench [pods] [rounds] [runs] [cases]   (default 10000 pods, 5 MODIFIED
//        rounds, 3 runs, cases "parse,typed,kept,drain,socket,informer"; the medians come
//        last). One case alone, e.g. "informer", is for profiling.
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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/median.hpp"
#include "bench/process_stats.hpp"
#include "bench/seed_pods.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "client/watch/watch_decoder.hpp"
#include "informer/shared_index_informer.hpp"
#include "sim/realistic_pod.hpp"

namespace asio = boost::asio;
using asio::ip::tcp;
using rg::bench::Clock;
using rg::bench::seconds_since;
using rg::bench::thread_cpu_seconds;
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
  constexpr std::size_t kChunk = std::size_t{64} * 1024;
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

  unsigned short port() const { return acceptor_.local_endpoint().port(); }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port()); }

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
      std::string head(asio::buffers_begin(buffer.data()),
                       asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(n));
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

// One measured case: wall seconds and CPU seconds of the thread that did the work.
struct Sample {
  double wall = 0;
  double cpu = 0;
};

class Stopwatch {
 public:
  Sample stop() const { return {seconds_since(wall_), thread_cpu_seconds() - cpu_}; }

 private:
  Clock::time_point wall_ = Clock::now();
  double cpu_ = thread_cpu_seconds();
};

void report(const char* what, const Sample& sample, std::size_t event_count,
            std::size_t byte_count) {
  const auto events = static_cast<double>(event_count);
  const auto bytes = static_cast<double>(byte_count);
  std::printf("  %-34s %8.0f events/s %6.0f MB/s | %8.0f events/CPU-s (%.3f s, %.3f CPU-s)\n", what,
              events / sample.wall, bytes / 1e6 / sample.wall, events / sample.cpu, sample.wall,
              sample.cpu);
}

// Bare boost::json::parse of every event line: the reference rate.
Sample bare_parse(const std::string& body, std::size_t events) {
  const Stopwatch watch;
  std::size_t parsed = 0;
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t end = body.find('\n', at);
    boost::json::value event = boost::json::parse(std::string_view(body).substr(at, end - at));
    parsed += event.is_object();
    at = end + 1;
  }
  const Sample sample = watch.stop();
  if (parsed != events) {
    std::fprintf(stderr, "boost::json parsed %zu events, expected %zu\n", parsed, events);
    std::exit(1);
  }
  return sample;
}

// The typed decoder alone on the same event lines, in 64 KiB pieces (what the informer's body
// reader handed it before its reads grew to 256 KiB; kept, so the yardstick stays comparable with
// earlier figures): the baseline of the target (informer events per CPU-s >= 60% of its rate).
// With `keep_pods` > 0 it keeps each pod's latest state as any cache must: event i replaces pod
// i % keep_pods (the body's order), so the replaced Pod is freed cold and each new one is
// decoded into the memory malloc recycles from such frees, as in the informer. That is a second
// yardstick, printed next to the target's: the informer's cost beyond it is what the informer
// machinery itself adds (no keys, no locks, no queue here).
Sample typed_decode(const std::string& body, std::size_t events, std::size_t keep_pods = 0) {
  std::vector<std::shared_ptr<const Pod>> cache(keep_pods);
  const Stopwatch watch;
  std::size_t decoded = 0;
  {
    rg::client::WatchDecoder<Pod> decoder;
    std::vector<rg::client::WatchEvent<Pod>> out;
    constexpr std::size_t kPiece = 64 * 1024;
    for (std::size_t at = 0; at < body.size(); at += kPiece) {
      decoder.feed(std::string_view(body).substr(at, kPiece), out);
      for (auto& event : out) {
        if (keep_pods != 0) cache[decoded % keep_pods] = std::move(event.object);
        ++decoded;
      }
      out.clear();
    }
    decoder.finish();
  }
  const Sample sample = watch.stop();
  if (decoded != events) {
    std::fprintf(stderr, "the typed decoder decoded %zu events, expected %zu\n", decoded, events);
    std::exit(1);
  }
  return sample;
}

// The server's delivery rate: a client that only drains the watch response from the socket.
Sample socket_drain(const FakeApiServer& server, std::size_t response_bytes) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  const Stopwatch watch;
  asio::write(socket, asio::buffer(std::string_view(
                          "GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: bench\r\n\r\n")));
  std::vector<char> buffer(std::size_t{128} * 1024);
  for (std::size_t received = 0; received < response_bytes;) {
    received += socket.read_some(asio::buffer(buffer));
  }
  return watch.stop();
}

// The client configuration of the cases that read the stand-in server through the RestClient.
rg::client::RestConfig stand_in_config(const std::string& address) {
  rg::client::RestConfig config;
  config.host = address;
  config.timeout = std::chrono::minutes(10);
  return config;
}

// The typed decoder keeping each pod, fed by the watch as the informer reads it: through the
// RestClient's transport from the same server, in the body reader's pieces, on one thread. The
// informer's cost beyond this is its machinery alone (Reflector, DeltaFIFO, Indexer, handler
// delivery); this one's beyond `kept` is the socket's (the reads' kernel time, and the cache the
// server's copies share).
Sample socket_decode(const std::string& address, std::size_t events, std::size_t keep_pods) {
  asio::io_context io;
  rg::client::RestClient client(stand_in_config(address));
  std::vector<std::shared_ptr<const Pod>> cache(keep_pods);
  std::size_t decoded = 0;
  auto read = [&]() -> asio::awaitable<void> {
    rg::client::WatchOptions options;
    options.resource_version = "1";
    auto stream = co_await client.watch(rg::client::resources::pods(), options);
    rg::client::WatchDecoder<Pod> decoder;
    std::vector<rg::client::WatchEvent<Pod>> out;
    while (decoded < events) {
      const std::string_view piece = co_await stream.read_some();
      if (piece.empty()) break;
      decoder.feed(piece, out);
      for (auto& event : out) cache[decoded++ % keep_pods] = std::move(event.object);
      out.clear();
    }
  };
  std::exception_ptr failure;
  bool ended = false;
  const Stopwatch watch;
  asio::co_spawn(io, read, [&](const std::exception_ptr& error) {
    failure = error;
    ended = true;
  });
  while (!ended) io.run_one();
  const Sample sample = watch.stop();
  if (failure) std::rethrow_exception(failure);
  if (decoded != events) {
    std::fprintf(stderr, "the socket decoder decoded %zu events, expected %zu\n", decoded, events);
    std::exit(1);
  }
  return sample;
}

Sample informer_watch(const std::string& address, std::size_t events) {
  asio::io_context io;
  rg::client::RestClient client(stand_in_config(address));

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
  const Stopwatch watch;
  asio::co_spawn(
      io, informer.run(),
      asio::bind_cancellation_slot(stop.slot(), [&](const std::exception_ptr&) { ended = true; }));
  while (handled < events && !ended) io.run_one();
  const Sample sample = watch.stop();
  stop.emit(asio::cancellation_type::terminal);
  while (!ended) io.run_one();
  if (handled < events) {
    std::fprintf(stderr, "the informer stopped after %zu of %zu events\n", handled, events);
    std::exit(1);
  }
  if (informer.indexer().size() * (events / informer.indexer().size()) != events) {
    std::fprintf(stderr, "the cache holds %zu pods\n", informer.indexer().size());
    std::exit(1);
  }
  return sample;
}

Sample median(const std::vector<Sample>& samples) {
  auto middle = [&](auto member) {
    std::vector<double> values;
    values.reserve(samples.size());
    for (const Sample& sample : samples) values.push_back(sample.*member);
    return rg::bench::median(std::move(values));
  };
  return {middle(&Sample::wall), middle(&Sample::cpu)};
}

// The informer's events per CPU-second as a share of a yardstick's: the median of the runs'
// shares, each run's informer against the yardstick measured just before it in the same run (a
// shared machine's pace drifts between runs), and their range. Nothing without both cases.
void report_share(const char* yardstick, const std::vector<Sample>& base,
                  const std::vector<Sample>& informer, const char* note) {
  if (base.size() != informer.size() || informer.empty()) return;
  std::vector<double> shares;
  for (std::size_t i = 0; i < informer.size(); ++i)
    shares.push_back(100.0 * base[i].cpu / informer[i].cpu);
  std::printf(
      "informer events per CPU-s = %.0f%% of the %s (%smedian of %zu runs, %.0f%%-%.0f%%)\n",
      rg::bench::median(shares), yardstick, note, shares.size(),
      *std::min_element(shares.begin(), shares.end()),
      *std::max_element(shares.begin(), shares.end()));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pods = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000;
  const std::size_t rounds = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 5;
  const std::size_t runs = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 3;
  const std::string cases = argc > 4 ? argv[4] : "parse,typed,kept,drain,socket,informer";
  if (pods == 0 || runs == 0) {
    std::fprintf(stderr,
                 "usage: informer_watch_bench [pods] [rounds] [runs] [cases]  (pods, runs > 0; "
                 "cases: parse,typed,kept,drain,socket,informer)\n");
    return 2;
  }
  const auto wanted = [&](std::string_view name) { return cases.find(name) != std::string::npos; };
  const std::size_t events = pods * (rounds + 1);
  const std::string body = watch_events(pods, rounds);
  std::printf("%zu realistic pods, %zu watch events (%.0f bytes/event), %zu runs\n", pods, events,
              static_cast<double>(body.size()) / static_cast<double>(events), runs);
  std::printf("%s\n", rg::bench::malloc_huge_pages().c_str());
  const std::string response = chunked_response(body);
  FakeApiServer server(response);
  std::vector<Sample> parse;
  std::vector<Sample> typed;
  std::vector<Sample> kept;
  std::vector<Sample> drain;
  std::vector<Sample> socket;
  std::vector<Sample> informer;
  constexpr const char* kParse = "bare boost::json::parse per event";
  constexpr const char* kTyped = "typed WatchDecoder<Pod> alone";
  constexpr const char* kKept = "typed decoder keeping each pod";
  constexpr const char* kDrain = "socket drain (server's rate)";
  constexpr const char* kSocket = "typed decoder reading the socket";
  constexpr const char* kInformer = "informer, socket -> handler";
  for (std::size_t run = 1; run <= runs; ++run) {
    std::printf("run %zu\n", run);
    if (wanted("parse")) {
      parse.push_back(bare_parse(body, events));
      report(kParse, parse.back(), events, body.size());
    }
    if (wanted("typed")) {
      typed.push_back(typed_decode(body, events));
      report(kTyped, typed.back(), events, body.size());
    }
    if (wanted("kept")) {
      kept.push_back(typed_decode(body, events, pods));
      report(kKept, kept.back(), events, body.size());
    }
    if (wanted("drain")) {
      drain.push_back(socket_drain(server, response.size()));
      report(kDrain, drain.back(), events, body.size());
    }
    if (wanted("socket")) {
      socket.push_back(socket_decode(server.address(), events, pods));
      report(kSocket, socket.back(), events, body.size());
    }
    if (wanted("informer")) {
      informer.push_back(informer_watch(server.address(), events));
      report(kInformer, informer.back(), events, body.size());
    }
  }
  std::printf("median of %zu runs\n", runs);
  if (!parse.empty()) report(kParse, median(parse), events, body.size());
  if (!typed.empty()) report(kTyped, median(typed), events, body.size());
  if (!kept.empty()) report(kKept, median(kept), events, body.size());
  if (!drain.empty()) report(kDrain, median(drain), events, body.size());
  if (!socket.empty()) report(kSocket, median(socket), events, body.size());
  if (!informer.empty()) report(kInformer, median(informer), events, body.size());
  report_share("typed decoder's", typed, informer, "target >= 60%; ");
  report_share("typed decoder's keeping each pod", kept, informer, "");
  report_share("typed decoder's reading the socket", socket, informer,
               "the informer's machinery alone; ");
  return 0;
}
