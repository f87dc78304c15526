// informer_sync_bench: the initial sync of a SharedIndexInformer<Pod> from an in-process kube-sim
// over loopback, for realistic kubelet-managed pods (sim/realistic_pod.hpp, ~4.5 KB of JSON each):
//  - time to synced (start -> has_synced) by paginated LIST (limit 500) and by streaming list;
//  - RSS growth: peak during the sync and steady afterwards (after malloc_trim), per cached pod;
//  - heap growth (malloc's bytes in use, mallinfo2): the cache's own cost per pod, free of the
//    page-level noise of RSS;
//  - next to it, in the same run, a bare boost::json::parse of the same LIST bytes (one
//    unpaginated LIST fetched beforehand), the reference the informer is measured against, and
//    the typed ListDecoder<Pod> alone on those bytes: the informer's CPU per pod is printed as a
//    multiple of it, next to its target (<= 1.5x), and of the typed decoder keeping every pod
//    (as a cache must: fresh memory, page faults), and the steady RSS per pod next to its
//    target (<= 1.0 KB);
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
#include <string>
#include <vector>

#include "bench/process_stats.hpp"
#include "bench/seed_pods.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "client/watch/list_decoder.hpp"
#include "informer/shared_index_informer.hpp"
#include "sim/server.hpp"

namespace asio = boost::asio;
using rg::bench::Clock;
using rg::bench::heap_in_use;
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

// CPU seconds of ListDecoder<Pod> on `bytes` in 64 KiB pieces, dropping each pod as it comes or
// keeping them all until the end (freed after the measurement).
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

template <class Measure>
double median_of_three(Measure measure) {
  double a = measure(), b = measure(), c = measure();
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

// CPU seconds per pod of the typed decoder alone (the target's yardstick), and of the typed
// decoder keeping every pod.
struct Yardsticks {
  double typed = 0;
  double kept = 0;
};

// The bare parse and the typed decoder on one LIST's bytes.
Yardsticks bare_parse(asio::io_context& io, rg::client::RestClient& client, std::size_t pods) {
  std::string bytes;
  bool fetched = false;
  asio::co_spawn(io, fetch_list(client), [&](std::exception_ptr error, std::string result) {
    if (error) std::rethrow_exception(error);
    bytes = std::move(result);
    fetched = true;
  });
  const auto fetch_start = Clock::now();
  const double fetch_cpu_start = process_cpu_seconds();
  const double fetch_thread_start = thread_cpu_seconds();
  run_until(io, [&] { return fetched; });
  const double fetch_took = seconds_since(fetch_start);
  const double fetch_thread = thread_cpu_seconds() - fetch_thread_start;
  const double fetch_cpu = process_cpu_seconds() - fetch_cpu_start;
  std::printf(
      "  kube-sim serving the unpaginated LIST to a client that only appends it: %.3f s = %.0f "
      "MB/s (CPU: kube-sim %.2f s, client %.2f s)\n",
      fetch_took, bytes.size() / 1e6 / fetch_took, fetch_cpu - fetch_thread, fetch_thread);
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
  parsed = nullptr;
  // The typed decoder alone, in 64 KiB pieces (the informer's body reader's reads before they
  // grew to 256 KiB; kept, so the yardstick compares with earlier figures), and
  // again keeping every pod as a cache must (fresh memory, page faults, where the decoder alone
  // reuses the few blocks it frees): the second a yardstick printed next to the target's. The
  // median of three passes each (one pass is ~0.5 s of CPU on a loaded machine).
  const double typed_cpu = median_of_three([&] { return typed_decode(bytes, pods, false); });
  const double kept_cpu = median_of_three([&] { return typed_decode(bytes, pods, true); });
  std::printf(
      "  typed ListDecoder<Pod> alone on the same bytes: CPU %.2f s = %.2f us/pod; keeping every "
      "pod: %.2f s = %.2f us/pod (medians of 3)\n",
      typed_cpu, typed_cpu * 1e6 / static_cast<double>(pods), kept_cpu,
      kept_cpu * 1e6 / static_cast<double>(pods));
  return {typed_cpu / static_cast<double>(pods), kept_cpu / static_cast<double>(pods)};
}

void informer_sync(asio::io_context& io, rg::client::RestClient& client, std::size_t pods,
                   bool watch_list, const Yardsticks& typed_cpu_per_pod) {
  malloc_trim(0);
  const std::size_t baseline = resident_bytes();
  const std::size_t heap_baseline = heap_in_use();
  rg::informer::SharedIndexInformer<Pod>::Options options;
  options.scope = {rg::client::resources::pods(), "", ""};
  options.name = "pods";
  options.reflector.use_watch_list = watch_list;
  std::size_t steady = 0;
  std::size_t heap = 0;
  std::size_t peak = 0;
  double took = 0;
  double cpu = 0;
  double informer_cpu = 0;
  {
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
    peak = run_until(io, [&] { return informer.has_synced() || ended; });
    if (ended) {
      std::fprintf(stderr, "the informer stopped before it synced: %s\n", what(failure).c_str());
      std::exit(1);
    }
    took = seconds_since(start);
    cpu = process_cpu_seconds() - cpu_start;
    informer_cpu = thread_cpu_seconds() - thread_start;
    if (informer.indexer().size() != pods) {
      std::fprintf(stderr, "synced %zu pods, expected %zu\n", informer.indexer().size(), pods);
      std::exit(1);
    }
    malloc_trim(0);
    steady = resident_bytes();
    heap = heap_in_use();
    stop.emit(asio::cancellation_type::terminal);
    run_until(io, [&] { return ended; });
  }
  std::printf(
      "  informer, %-14s synced %zu pods in %.3f s = %.0f pods/s (CPU: informer %.2f s, "
      "kube-sim %.2f s); RSS growth: peak %.0f MiB, steady %.0f MiB = %.2f KB/pod; heap growth "
      "%.2f KB/pod\n",
      watch_list ? "streaming list" : "LIST (500/page)", pods, took, pods / took, informer_cpu,
      cpu - informer_cpu, mib(static_cast<double>(peak - baseline)),
      mib(static_cast<double>(steady - baseline)),
      static_cast<double>(steady - baseline) / 1024.0 / static_cast<double>(pods),
      static_cast<double>(heap - heap_baseline) / 1024.0 / static_cast<double>(pods));
  const double per_pod = informer_cpu / static_cast<double>(pods);
  std::printf(
      "    informer CPU per pod %.2f us = %.2fx the typed decoder's (target <= 1.5x), %.2fx the "
      "typed decoder's keeping every pod; steady RSS per pod %.2f KB (target <= 1.0 KB)\n",
      per_pod * 1e6, per_pod / typed_cpu_per_pod.typed, per_pod / typed_cpu_per_pod.kept,
      static_cast<double>(steady - baseline) / 1024.0 / static_cast<double>(pods));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {10'000, 100'000};
  std::printf("%s\n", rg::bench::malloc_huge_pages().c_str());
  for (const std::size_t pods : sizes) {
    rg::sim::Server server;
    const auto seeding = Clock::now();
    rg::bench::seed_pods(server, pods);
    std::printf("%zu realistic pods (seeded in %.1f s)\n", pods, seconds_since(seeding));
    asio::io_context io;
    rg::client::RestConfig config;
    config.host = server.address();
    config.timeout = std::chrono::minutes(10);
    rg::client::RestClient client(config);
    const Yardsticks typed_cpu_per_pod = bare_parse(io, client, pods);
    informer_sync(io, client, pods, false, typed_cpu_per_pod);
    informer_sync(io, client, pods, true, typed_cpu_per_pod);
  }
  return 0;
}
