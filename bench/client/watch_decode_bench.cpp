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

struct Case {
  const char* name;
  std::size_t bytes;
  std::function<void()> pass;  // one pass over the corpus
  double best = 1e9;           // seconds
};

// Runs every case once per round, for at least `rounds` rounds and `seconds` in all, keeping each
// case's best pass: interleaving keeps the ratios fair on a machine whose load varies.
void run(std::vector<Case>& cases, int rounds, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  for (int round = 0; round < rounds || Clock::now() < deadline; ++round) {
    for (auto& c : cases) {
      const auto start = Clock::now();
      c.pass();
      c.best = std::min(c.best, std::chrono::duration<double>(Clock::now() - start).count());
    }
  }
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
  const int rounds = 5;
  const double seconds = argc > 3 ? std::stod(argv[3]) : 10.0;
  const Corpus corpus = make_corpus(pods);
  const std::size_t bytes = corpus.stream.size();
  std::printf(
      "%zu realistic pods, %.0f bytes of JSON each on average; watch stream %.1f MB fed in "
      "%zu-byte chunks; best of >= %d interleaved rounds over %.0f s\n\n",
      pods, static_cast<double>(corpus.pod_bytes) / static_cast<double>(pods),
      static_cast<double>(bytes) / 1e6, chunk, rounds, seconds);

  const std::string_view stream = corpus.stream;
  const std::string_view list_body = corpus.list;
  auto watch_pass = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return [&] {
      rg::client::WatchDecoder<T> decoder;
      std::vector<rg::client::WatchEvent<T>> events;
      for (std::size_t at = 0; at < stream.size(); at += chunk) {
        decoder.feed(stream.substr(at, chunk), events);
        g_sink = g_sink + events.size();
        events.clear();
      }
      decoder.finish();
    };
  };
  std::vector<Case> cases{
      {"tokenizer only (basic_parser, null handler)", bytes,
       [&] {
         boost::json::basic_parser<NullHandler> parser(boost::json::parse_options{});
         for (const auto& event : corpus.events) {
           parser.reset();
           boost::json::error_code ec;
           g_sink = g_sink + parser.write_some(false, event.data(), event.size(), ec);
         }
       }},
      {"bare DOM parse (boost::json::parse)", bytes,
       [&] {
         for (const auto& event : corpus.events) {
           g_sink = g_sink + boost::json::parse(event).as_object().size();
         }
       }},
      {"WatchDecoder<Pod> (typed projection)", bytes,
       watch_pass(std::type_identity<rg::client::Pod>{})},
      {"WatchDecoder<Unstructured>", bytes,
       watch_pass(std::type_identity<rg::client::Unstructured>{})},
      {"ListDecoder<Pod> (PodList body)", list_body.size(),
       [&] {
         rg::client::ListDecoder<rg::client::Pod> decoder;
         std::vector<std::shared_ptr<const rg::client::Pod>> items;
         for (std::size_t at = 0; at < list_body.size(); at += chunk) {
           decoder.feed(list_body.substr(at, chunk), items);
           g_sink = g_sink + items.size();
           items.clear();
         }
         g_sink = g_sink + decoder.finish().resource_version.size();
       }},
  };
  run(cases, rounds, seconds);
  const double dom_mbps = static_cast<double>(cases[1].bytes) / cases[1].best / 1e6;
  for (const auto& c : cases) report(c.name, c.bytes, pods, c.best, dom_mbps);
  return 0;
}
