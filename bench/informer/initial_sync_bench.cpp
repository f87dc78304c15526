// informer_sync_bench: the initial sync of a SharedIndexInformer<Pod> from an in-process kube-sim
// over loopback, for realistic kubelet-managed pods (sim/realistic_pod.hpp, ~4.5 KB of JSON each):
//  - time to synced (start -> has_synced) by paginated LIST (limit 500) and by streaming list;
//  - RSS growth: peak during the sync and steady afterwards (after malloc_trim), per cached pod;
//  - heap growth (malloc's bytes in use, mallinfo2): the cache's own cost per pod, free of the
//    page-level noise of RSS;
//  - next to it, the typed ListDecoder<Pod> alone on the same bytes (one unpaginated LIST
//    fetched beforehand), the reference the informer is measured against: the informer's CPU
//    per pod is printed as a multiple of it, next to its target (<= 1.5x), and of the typed
//    decoder keeping every pod; and the steady RSS per pod next to its target (<= 1.0 KB);
//    a streaming list's bytes are watch events, not a LIST: its own reference is the typed
//    WatchDecoder<Pod> alone on the stream's bytes (fetched beforehand, up to the
//    initial-events-end bookmark), printed next to the target beside the ListDecoder's;
//  - a third yardstick per mode: the typed decoder reading the same pods from kube-sim through
//    the RestClient as the informer does (by pages, or the streaming list's events), keeping
//    every pod: the informer's CPU beyond it is its own machinery's, and its own beyond the
//    decoder keeping every pod is the socket's and the co-located server's.
//    Five rounds, each the yardsticks then both syncs; a ratio divides a sync by the yardstick
//    of its own round, and the median of the rounds' ratios is the one printed next to the
//    target (this shared machine's speed drifts more between the phases of a run than within a
//    round); a bare boost::json::parse of the same bytes, once, as the first reference;
//  - whether malloc's heap is in transparent huge pages, as the image runs the operator (the
//    informer's CPU depends on it: see rg::bench::malloc_huge_pages);
//  - CPU split between the informer (this thread: HTTP client, decoding, DeltaFIFO, Indexer)
//    and kube-sim (its own thread), and kube-sim's serving time alone: the unpaginated LIST read
//    by a client that only appends the bytes.
// kube-sim serves pre-encoded objects, so it is not what limits the figures. The RSS figures
// are the whole process's (kube-sim's transient buffers included), measured from a baseline
// taken after seeding.
//
// Usage: informer_sync_bench [pods...]   (default: 10000 100000)

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/median.hpp"
#include "bench/process_stats.hpp"
#include "bench/seed_pods.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "client/watch/list_decoder.hpp"
#include "client/watch/watch_decoder.hpp"
#include "informer/shared_index_informer.hpp"
#include "sim/server.hpp"

namespace asio = boost::asio;
using rg::bench::Clock;
using rg::bench::heap_in_use;
using rg::bench::median;
using rg::bench::process_cpu_seconds;
using rg::bench::resident_bytes;
using rg::bench::seconds_since;
using rg::bench::thread_cpu_seconds;
using rg::client::Pod;

namespace {

std::string what(const std::exception_ptr& error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// Runs `io` until `done()`, sampling the RSS peak every millisecond.
template <class Done>
std::size_t run_until(asio::io_context& io, Done done) {
  std::size_t peak = resident_bytes();
  while (!done()) {
    io.restart();
    io.run_for(std::chrono::milliseconds(1));
    peak = std::max(peak, resident_bytes());
  }
  return peak;
}

// Runs `task` on `io` to its end: its result (its exception is rethrown).
template <class R>
R complete(asio::io_context& io, asio::awaitable<R> task) {
  std::optional<R> result;
  asio::co_spawn(io, std::move(task), [&](std::exception_ptr error, R value) {
    if (error) std::rethrow_exception(error);
    result = std::move(value);
  });
  run_until(io, [&] { return result.has_value(); });
  return std::move(*result);
}

// True for the bookmark that ends a streaming list's initial events.
bool ends_initial_events(const rg::client::WatchEvent<Pod>& event) {
  return event.type == rg::client::WatchEventType::kBookmark &&
         rg::informer::meta::annotation(*event.object, rg::client::kInitialEventsEndAnnotation) ==
             "true";
}

asio::awaitable<std::string> fetch_list(rg::client::RestClient& client) {
  rg::client::ListOptions options;
  options.limit = 0;
  options.timeout = std::chrono::minutes(10);
  rg::client::BodyReader body = co_await client.list_stream(rg::client::resources::pods(), options);
  std::string bytes;
  for (auto piece = co_await body.read_some(); !piece.empty(); piece = co_await body.read_some()) {
    bytes.append(piece);
  }
  co_return bytes;
}

// CPU seconds of ListDecoder<Pod> on `bytes` in 64 KiB pieces (the informer's body reader's
// reads before they grew to 256 KiB; kept, so the yardstick compares with earlier figures),
// dropping each pod as it comes (the target's yardstick) or keeping them all until the end, as a
// cache must (freed after the measurement; the memory it fills is mostly what the previous pass
// freed, so it pays few page faults, which the informer does pay).
double typed_decode(const std::string& bytes, std::size_t pods, bool keep) {
  std::vector<std::shared_ptr<const Pod>> kept;
  if (keep) kept.reserve(pods);
  std::size_t decoded = 0;
  const double start = thread_cpu_seconds();
  {
    rg::client::ListDecoder<Pod> decoder;
    constexpr std::size_t kPiece = 64 * 1024;
    for (std::size_t at = 0; at < bytes.size(); at += kPiece)
      decoder.feed(std::string_view(bytes).substr(at, kPiece), [&](std::shared_ptr<const Pod> pod) {
        ++decoded;
        if (keep) kept.push_back(std::move(pod));
      });
    decoder.finish();
  }
  const double cpu = thread_cpu_seconds() - start;
  if (decoded != pods) {
    std::fprintf(stderr, "the typed decoder decoded %zu pods, expected %zu\n", decoded, pods);
    std::exit(1);
  }
  return cpu;
}

// CPU seconds of WatchDecoder<Pod> on a streaming list's `bytes` in 64 KiB pieces (as
// typed_decode), dropping each pod as it comes: the typed decoder's CPU for the bytes a
// streaming list's informer reads.
double typed_watch_decode(const std::string& bytes, std::size_t pods) {
  std::size_t decoded = 0;
  const double start = thread_cpu_seconds();
  {
    rg::client::WatchDecoder<Pod> decoder;
    std::vector<rg::client::WatchEvent<Pod>> events;
    constexpr std::size_t kPiece = 64 * 1024;
    for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
      events.clear();
      decoder.feed(std::string_view(bytes).substr(at, kPiece), events);
      for (const auto& event : events) decoded += event.type == rg::client::WatchEventType::kAdded;
    }
  }
  const double cpu = thread_cpu_seconds() - start;
  if (decoded != pods) {
    std::fprintf(stderr, "the typed watch decoder decoded %zu pods, expected %zu\n", decoded, pods);
    std::exit(1);
  }
  return cpu;
}

// One unpaginated LIST's bytes, as kube-sim serves them to a client that only appends them.
std::string fetch_list_bytes(asio::io_context& io, rg::client::RestClient& client) {
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  const double thread_start = thread_cpu_seconds();
  const std::string bytes = complete(io, fetch_list(client));
  const double took = seconds_since(start);
  const double thread = thread_cpu_seconds() - thread_start;
  const double cpu = process_cpu_seconds() - cpu_start;
  std::printf(
      "  kube-sim serving the unpaginated LIST to a client that only appends it: %.3f s = %.0f "
      "MB/s (CPU: kube-sim %.2f s, client %.2f s)\n",
      took, bytes.size() / 1e6 / took, cpu - thread, thread);
  return bytes;
}

// The reference the informer was first measured against: a bare boost::json::parse of the LIST.
void bare_parse(const std::string& bytes, std::size_t pods) {
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  boost::json::value parsed = boost::json::parse(bytes);
  const double took = seconds_since(start);
  const double cpu = process_cpu_seconds() - cpu_start;
  const std::size_t items = parsed.at("items").as_array().size();
  std::printf(
      "  bare boost::json::parse of the LIST: %zu pods, %.1f MB in %.3f s = %.0f MB/s, "
      "%.0f pods/s (CPU %.1f s; %.0f bytes/pod)\n",
      items, bytes.size() / 1e6, took, bytes.size() / 1e6 / took, pods / took, cpu,
      static_cast<double>(bytes.size()) / static_cast<double>(pods));
}

// The typed decoder fed by the socket, keeping every pod: the pods read from kube-sim the way
// the informer reads them (by pages of 500, or as the streaming list's ADDED events up to the
// initial-events-end bookmark), through the RestClient's body reader, and nothing else. The
// informer's CPU beyond this one is its machinery's (Reflector, DeltaFIFO, Indexer); this one's
// beyond the typed decoder keeping every pod is the socket's (the reads' kernel time, and
// kube-sim copying into the socket on the other core at the same moment).
asio::awaitable<std::size_t> read_paged(rg::client::RestClient& client,
                                        std::vector<std::shared_ptr<const Pod>>& kept) {
  rg::client::ListOptions options;
  options.limit = 500;
  do {
    rg::client::BodyReader body =
        co_await client.list_stream(rg::client::resources::pods(), options);
    rg::client::ListDecoder<Pod> decoder;
    for (auto piece = co_await body.read_some(); !piece.empty();
         piece = co_await body.read_some()) {
      decoder.feed(piece, kept);
    }
    options.continue_ = decoder.finish().continue_;
  } while (!options.continue_.empty());
  co_return kept.size();
}

// (`bytes`, if given, gets the stream's bytes up to the end bookmark's piece.)
asio::awaitable<std::size_t> read_streaming(rg::client::RestClient& client,
                                            std::vector<std::shared_ptr<const Pod>>& kept,
                                            std::string* bytes = nullptr) {
  rg::client::WatchOptions options;
  options.send_initial_events = true;
  options.allow_watch_bookmarks = true;
  options.resource_version_match = "NotOlderThan";
  rg::client::BodyReader body = co_await client.watch(rg::client::resources::pods(), options);
  rg::client::WatchDecoder<Pod> decoder;
  std::vector<rg::client::WatchEvent<Pod>> events;
  for (auto piece = co_await body.read_some(); !piece.empty(); piece = co_await body.read_some()) {
    if (bytes) bytes->append(piece);
    events.clear();
    decoder.feed(piece, events);
    for (auto& event : events) {
      if (event.type == rg::client::WatchEventType::kAdded) {
        kept.push_back(std::move(event.object));
      } else if (ends_initial_events(event)) {
        co_return kept.size();  // the stream stays open; dropping the reader closes it
      }
    }
  }
  co_return kept.size();
}

// A streaming list's bytes up to its initial-events-end bookmark, as the RestClient hands them to
// the informer's watch decoder.
asio::awaitable<std::string> fetch_stream(rg::client::RestClient& client) {
  std::vector<std::shared_ptr<const Pod>> pods;
  std::string bytes;
  co_await read_streaming(client, pods, &bytes);
  co_return bytes;
}

double socket_decode(asio::io_context& io, rg::client::RestClient& client, std::size_t pods,
                     bool watch_list) {
  malloc_trim(0);  // as before an informer sync: the pods kept land in fresh pages
  std::vector<std::shared_ptr<const Pod>> kept;
  kept.reserve(pods);
  const double start = thread_cpu_seconds();
  const std::size_t decoded =
      complete(io, watch_list ? read_streaming(client, kept) : read_paged(client, kept));
  const double cpu = thread_cpu_seconds() - start;
  if (decoded != pods) {
    std::fprintf(stderr, "the socket-fed decoder decoded %zu pods, expected %zu\n", decoded, pods);
    std::exit(1);
  }
  return cpu;
}

// What one informer sync measured.
struct Sync {
  double cpu_per_pod = 0;  // the informer's thread
  double took = 0;
  double kube_sim_cpu = 0;
  std::size_t peak = 0;    // RSS growth, bytes
  std::size_t steady = 0;  // RSS growth after malloc_trim, bytes
  std::size_t heap = 0;    // malloc's bytes in use, growth
};

Sync informer_sync(asio::io_context& io, rg::client::RestClient& client, std::size_t pods,
                   bool watch_list) {
  malloc_trim(0);
  const std::size_t baseline = resident_bytes();
  const std::size_t heap_baseline = heap_in_use();
  rg::informer::SharedIndexInformer<Pod>::Options options;
  options.scope = {rg::client::resources::pods(), "", ""};
  options.name = "pods";
  options.reflector.use_watch_list = watch_list;
  Sync sync;
  rg::informer::SharedIndexInformer<Pod> informer(client, options);
  asio::cancellation_signal stop;
  bool ended = false;
  std::exception_ptr failure;
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  const double thread_start = thread_cpu_seconds();
  asio::co_spawn(io, informer.run(),
                 asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr error) {
                   ended = true;
                   failure = error;
                 }));
  const std::size_t peak = run_until(io, [&] { return informer.has_synced() || ended; });
  if (ended) {
    std::fprintf(stderr, "the informer stopped before it synced: %s\n", what(failure).c_str());
    std::exit(1);
  }
  sync.took = seconds_since(start);
  const double informer_cpu = thread_cpu_seconds() - thread_start;
  sync.kube_sim_cpu = process_cpu_seconds() - cpu_start - informer_cpu;
  sync.cpu_per_pod = informer_cpu / static_cast<double>(pods);
  if (informer.indexer().size() != pods) {
    std::fprintf(stderr, "synced %zu pods, expected %zu\n", informer.indexer().size(), pods);
    std::exit(1);
  }
  malloc_trim(0);
  sync.peak = peak - baseline;
  sync.steady = resident_bytes() - baseline;
  sync.heap = heap_in_use() - heap_baseline;
  stop.emit(asio::cancellation_type::terminal);
  run_until(io, [&] { return ended; });
  return sync;
}

// A sync's CPU per pod over a yardstick's, round by round: the median and the range.
struct Ratio {
  double median = 0, min = 0, max = 0;
};

Ratio ratio(const std::vector<Sync>& syncs, const std::vector<double>& yardstick) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < syncs.size(); ++i)
    ratios.push_back(syncs[i].cpu_per_pod / yardstick[i]);
  return {median(ratios), *std::min_element(ratios.begin(), ratios.end()),
          *std::max_element(ratios.begin(), ratios.end())};
}

// One mode's yardsticks, a value per round (CPU seconds per pod).
struct Yardsticks {
  const std::vector<double>& same_bytes;  // the typed decoder alone on the bytes the mode reads
  const std::vector<double>* list_bytes;  // the ListDecoder on the LIST's, if those differ
  const std::vector<double>& kept;        // the ListDecoder keeping every pod
  const std::vector<double>& socket;      // the typed decoder reading the socket as the informer
};

// The rounds of one mode: the median CPU per pod, the median of the rounds' ratios to each
// yardstick (each informer sync divided by the yardsticks measured in its own round), the
// memory of the last sync.
void report(const char* mode, std::size_t pods, const std::vector<Sync>& syncs,
            const Yardsticks& yardsticks) {
  std::vector<double> cpu, took;
  for (const Sync& sync : syncs) {
    cpu.push_back(sync.cpu_per_pod);
    took.push_back(sync.took);
  }
  const Sync& last = syncs.back();
  const double per_pod_kb = 1.0 / 1024.0 / static_cast<double>(pods);
  std::printf(
      "  informer, %-15s synced %zu pods in %.3f s = %.0f pods/s (kube-sim CPU %.2f s); RSS "
      "growth: peak %.0f MiB, steady %.0f MiB = %.2f KB/pod; heap growth %.2f KB/pod\n",
      mode, pods, median(took), static_cast<double>(pods) / median(took), last.kube_sim_cpu,
      mib(static_cast<double>(last.peak)), mib(static_cast<double>(last.steady)),
      static_cast<double>(last.steady) * per_pod_kb, static_cast<double>(last.heap) * per_pod_kb);
  const Ratio same = ratio(syncs, yardsticks.same_bytes);
  std::printf(
      "    informer CPU per pod %.2f us = %.2fx the typed decoder's on the same bytes (target <= "
      "1.5x; rounds %.2fx-%.2fx)",
      median(cpu) * 1e6, same.median, same.min, same.max);
  if (yardsticks.list_bytes) {
    const Ratio list = ratio(syncs, *yardsticks.list_bytes);
    std::printf(", %.2fx the typed ListDecoder's on the LIST's bytes (rounds %.2fx-%.2fx)",
                list.median, list.min, list.max);
  }
  const Ratio socket = ratio(syncs, yardsticks.socket);
  std::printf(
      ", %.2fx the typed ListDecoder's keeping every pod, %.2fx the typed decoder's reading the "
      "socket (rounds %.2fx-%.2fx); steady RSS per pod %.2f KB (target <= 1.0 KB)\n",
      ratio(syncs, yardsticks.kept).median, socket.median, socket.min, socket.max,
      static_cast<double>(last.steady) * per_pod_kb);
}

// `rounds` rounds, each the yardsticks then a paginated and a streaming sync: a ratio compares
// runs a few seconds apart, not phases of the run minutes apart (a shared machine's speed drifts
// more than that between them).
void measure(asio::io_context& io, rg::client::RestClient& client, const std::string& list_bytes,
             const std::string& stream_bytes, std::size_t pods, std::size_t rounds) {
  std::vector<double> typed, typed_stream, kept, socket_paged, socket_streaming;
  std::vector<Sync> paged, streaming;
  const double n = static_cast<double>(pods);
  for (std::size_t round = 1; round <= rounds; ++round) {
    typed.push_back(typed_decode(list_bytes, pods, false) / n);
    typed_stream.push_back(typed_watch_decode(stream_bytes, pods) / n);
    kept.push_back(typed_decode(list_bytes, pods, true) / n);
    socket_paged.push_back(socket_decode(io, client, pods, false) / n);
    socket_streaming.push_back(socket_decode(io, client, pods, true) / n);
    paged.push_back(informer_sync(io, client, pods, false));
    streaming.push_back(informer_sync(io, client, pods, true));
    std::printf(
        "  round %zu: typed decoder %.2f us/pod (the stream's %.2f), keeping every pod %.2f, "
        "reading the socket %.2f paged, %.2f streaming; informer paged %.2f (%.2fx), streaming "
        "%.2f (%.2fx)\n",
        round, typed.back() * 1e6, typed_stream.back() * 1e6, kept.back() * 1e6,
        socket_paged.back() * 1e6, socket_streaming.back() * 1e6, paged.back().cpu_per_pod * 1e6,
        paged.back().cpu_per_pod / typed.back(), streaming.back().cpu_per_pod * 1e6,
        streaming.back().cpu_per_pod / typed_stream.back());
  }
  std::printf(
      "  medians of %zu rounds: typed ListDecoder<Pod> alone %.2f us/pod, typed "
      "WatchDecoder<Pod> alone on the streaming list's events %.2f us/pod, keeping every pod "
      "%.2f us/pod; reading the socket, keeping every pod: paged %.2f us/pod, streaming %.2f "
      "us/pod\n",
      rounds, median(typed) * 1e6, median(typed_stream) * 1e6, median(kept) * 1e6,
      median(socket_paged) * 1e6, median(socket_streaming) * 1e6);
  report("LIST (500/page)", pods, paged, {typed, nullptr, kept, socket_paged});
  report("streaming list", pods, streaming, {typed_stream, &typed, kept, socket_streaming});
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {10'000, 100'000};
  constexpr std::size_t kRounds = 5;
  std::printf("%s\n", rg::bench::malloc_huge_pages().c_str());
  for (const std::size_t pods : sizes) {
    if (pods == 0) {
      std::fprintf(stderr, "usage: informer_sync_bench [pods...]  (each > 0)\n");
      return 2;
    }
    rg::sim::Server server;
    const auto seeding = Clock::now();
    rg::bench::seed_pods(server, pods);
    std::printf("%zu realistic pods (seeded in %.1f s)\n", pods, seconds_since(seeding));
    asio::io_context io;
    rg::client::RestConfig config;
    config.host = server.address();
    config.timeout = std::chrono::minutes(10);
    rg::client::RestClient client(config);
    const std::string bytes = fetch_list_bytes(io, client);
    const std::string stream_bytes = complete(io, fetch_stream(client));
    bare_parse(bytes, pods);
    measure(io, client, bytes, stream_bytes, pods, kRounds);
  }
  return 0;
}
