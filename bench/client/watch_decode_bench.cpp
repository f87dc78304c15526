// Watch-stream and LIST decoding throughput into typed projections, next to Boost.JSON's bare
// DOM parse (boost::json::parse) and its tokenizer alone (basic_parser with a handler that does
// nothing, the ceiling) over the same bytes: realistic kubelet-managed pods (sim/realistic_pod).
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "client/model/pod.hpp"
#include "client/model/unstructured.hpp"
#include "client/watch/list_decoder.hpp"
#include "client/watch/watch_decoder.hpp"
#include "sim/realistic_pod.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct NullHandler {
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  using ec = boost::json::error_code;
  using sv = boost::json::string_view;
  bool on_document_begin(ec&) { return true; }
  bool on_document_end(ec&) { return true; }
  bool on_object_begin(ec&) { return true; }
  bool on_object_end(std::size_t, ec&) { return true; }
  bool on_array_begin(ec&) { return true; }
  bool on_array_end(std::size_t, ec&) { return true; }
  bool on_key_part(sv, std::size_t, ec&) { return true; }
  bool on_key(sv, std::size_t, ec&) { return true; }
  bool on_string_part(sv, std::size_t, ec&) { return true; }
  bool on_string(sv, std::size_t, ec&) { return true; }
  bool on_number_part(sv, ec&) { return true; }
  bool on_int64(std::int64_t, sv, ec&) { return true; }
  bool on_uint64(std::uint64_t, sv, ec&) { return true; }
  bool on_double(double, sv, ec&) { return true; }
  bool on_bool(bool, ec&) { return true; }
  bool on_null(ec&) { return true; }
  bool on_comment_part(sv, ec&) { return true; }
  bool on_comment(sv, ec&) { return true; }
};

struct Corpus {
  std::vector<std::string> events;  // one watch event document each
  std::string stream;               // the events, newline-delimited
  std::string list;                 // a PodList body of the same pods
  std::size_t pod_bytes = 0;
};

Corpus make_corpus(std::size_t pods) {
  Corpus corpus;
  corpus.list =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)";
  for (std::size_t i = 0; i < pods; ++i) {
    rg::sim::RealisticPodSpec spec;
    spec.ordinal = i;
    spec.node_name = "node-" + std::to_string(i % 50);
    spec.ready = i % 7 != 0;
    auto pod = rg::sim::realistic_pod(spec);
    pod["metadata"].as_object()["resourceVersion"] = std::to_string(1000 + i);
    const std::string object = boost::json::serialize(pod);
    corpus.pod_bytes += object.size();
    corpus.events.push_back(R"({"type":"ADDED","object":)" + object + "}");
    corpus.stream += corpus.events.back() + "\n";
    corpus.list += (i == 0 ? "" : ",") + object;
  }
  corpus.list += "]}";
  return corpus;
}

// Runs `body` (one pass over the corpus) repeatedly for about `seconds`, returning the best pass.
double best_seconds(const std::function<void()>& body, double seconds = 1.0) {
  double best = 1e9;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int runs = 0;
  do {
    const auto start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    ++runs;
  } while (runs < 3 || Clock::now() < deadline);
  return best;
}

volatile std::size_t g_sink = 0;

void report(const char* name, std::size_t bytes, std::size_t events, double seconds,
            double baseline_mbps) {
  const double mbps = static_cast<double>(bytes) / seconds / 1e6;
  std::printf("%-44s %9.1f MB/s %10.0f events/s", name, mbps,
              static_cast<double>(events) / seconds);
  if (baseline_mbps > 0) std::printf("   %5.2fx DOM", mbps / baseline_mbps);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pods = argc > 1 ? std::stoul(argv[1]) : 2000;
  const std::size_t chunk = argc > 2 ? std::stoul(argv[2]) : 16384;
  const Corpus corpus = make_corpus(pods);
  const std::size_t bytes = corpus.stream.size();
  std::printf(
      "%zu realistic pods, %.0f bytes of JSON each on average; watch stream %.1f MB fed in "
      "%zu-byte chunks\n\n",
      pods, static_cast<double>(corpus.pod_bytes) / static_cast<double>(pods),
      static_cast<double>(bytes) / 1e6, chunk);

  const double tokenizer = best_seconds([&] {
    boost::json::basic_parser<NullHandler> parser(boost::json::parse_options{});
    for (const auto& event : corpus.events) {
      parser.reset();
      boost::json::error_code ec;
      g_sink = g_sink + parser.write_some(false, event.data(), event.size(), ec);
    }
  });
  const double dom = best_seconds([&] {
    for (const auto& event : corpus.events) {
      g_sink = g_sink + boost::json::parse(event).as_object().size();
    }
  });
  const double dom_mbps = static_cast<double>(bytes) / dom / 1e6;

  auto watch = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return best_seconds([&] {
      rg::client::WatchDecoder<T> decoder;
      std::vector<rg::client::WatchEvent<T>> events;
      for (std::size_t at = 0; at < corpus.stream.size(); at += chunk) {
        decoder.feed(std::string_view(corpus.stream).substr(at, chunk), events);
        g_sink = g_sink + events.size();
        events.clear();
      }
      decoder.finish();
    });
  };
  const double typed = watch(std::type_identity<rg::client::Pod>{});
  const double unstructured = watch(std::type_identity<rg::client::Unstructured>{});
  const double list = best_seconds([&] {
    rg::client::ListDecoder<rg::client::Pod> decoder;
    std::vector<std::shared_ptr<const rg::client::Pod>> items;
    for (std::size_t at = 0; at < corpus.list.size(); at += chunk) {
      decoder.feed(std::string_view(corpus.list).substr(at, chunk), items);
      g_sink = g_sink + items.size();
      items.clear();
    }
    g_sink = g_sink + decoder.finish().resource_version.size();
  });

  report("tokenizer only (basic_parser, null handler)", bytes, pods, tokenizer, dom_mbps);
  report("bare DOM parse (boost::json::parse)", bytes, pods, dom, dom_mbps);
  report("WatchDecoder<Pod> (typed projection)", bytes, pods, typed, dom_mbps);
  report("WatchDecoder<Unstructured>", bytes, pods, unstructured, dom_mbps);
  report("ListDecoder<Pod> (PodList body)", corpus.list.size(), pods, list, dom_mbps);
  return 0;
}
