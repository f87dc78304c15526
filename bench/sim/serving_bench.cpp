// sim_serving_bench: how fast an in-process kube-sim serves a large cluster of realistic
// kubelet-managed pods (sim/realistic_pod.hpp, ~4.5 KB of JSON each) over loopback HTTP:
//  - memory: heap and RSS growth per stored pod while seeding;
//  - LIST paged 500 at a time (as kubectl and reflectors ask) and unpaged: seconds, MB/s, and
//    the mean time of the first and the last ten pages (equal when a page costs O(page));
//  - watch fan-out: N watches of all pods, each receiving the same M events (pod updates made
//    in-process): seconds from the first update to the last event delivered, events/s, MB/s.
// The client only counts bytes (and finds each page's continue token), so the figures are
// kube-sim's serving cost plus loopback, not a client's decoding.
//
// Usage: sim_serving_bench [pods=100000] [watchers=100] [events=1000]

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench/process_stats.hpp"
#include "bench/run_until.hpp"
#include "bench/seed_pods.hpp"
#include "client/rest/rest_client.hpp"
#include "sim/server.hpp"

namespace asio = boost::asio;
using rg::bench::Clock;
using rg::bench::heap_in_use;
using rg::bench::resident_bytes;
using rg::bench::run_until;
using rg::bench::seconds_since;

namespace {

// The list's metadata.continue, from the head of the document (the list header comes first).
std::string continue_of(std::string_view head) {
  constexpr std::string_view kField = R"("continue":")";
  const auto at = head.find(kField);
  if (at == std::string_view::npos) return {};
  const auto begin = at + kField.size();
  return std::string(head.substr(begin, head.find('"', begin) - begin));
}

struct Page {
  std::size_t bytes = 0;
  std::string continue_token;
  double seconds = 0;
};

asio::awaitable<Page> fetch_page(rg::client::RestClient& client, std::int64_t limit,
                                 std::string continue_token) {
  const auto start = Clock::now();
  rg::client::ListOptions options;
  options.limit = limit;
  options.continue_ = std::move(continue_token);
  options.timeout = std::chrono::minutes(10);
  rg::client::BodyReader body = co_await client.list_stream(rg::client::resources::pods(), options);
  Page page;
  std::string head;
  for (auto piece = co_await body.read_some(); !piece.empty(); piece = co_await body.read_some()) {
    if (head.size() < 512) head.append(piece.substr(0, 512 - head.size()));
    page.bytes += piece.size();
  }
  page.continue_token = continue_of(head);
  page.seconds = seconds_since(start);
  co_return page;
}

asio::awaitable<void> list_all(rg::client::RestClient& client, std::int64_t limit,
                               std::vector<Page>& pages) {
  std::string token;
  do {
    Page page = co_await fetch_page(client, limit, token);
    token = page.continue_token;
    pages.push_back(std::move(page));
  } while (!token.empty());
}

void seed(rg::sim::Server& server, std::size_t pods) {
  malloc_trim(0);
  const std::size_t rss = resident_bytes();
  const std::size_t heap = heap_in_use();
  const auto start = Clock::now();
  rg::bench::seed_pods(server, pods);
  const double took = seconds_since(start);
  malloc_trim(0);
  const double per_pod = 1.0 / 1024.0 / static_cast<double>(pods);
  std::printf(
      "seeded %zu realistic pods in %.1f s; memory per stored pod: heap %.2f KB, RSS %.2f KB\n",
      pods, took, static_cast<double>(heap_in_use() - heap) * per_pod,
      static_cast<double>(resident_bytes() - rss) * per_pod);
}

void list(asio::io_context& io, rg::client::RestClient& client, std::int64_t limit) {
  std::vector<Page> pages;
  std::exception_ptr failure;
  bool done = false;
  const auto start = Clock::now();
  asio::co_spawn(io, list_all(client, limit, pages), [&](std::exception_ptr error) {
    failure = error;
    done = true;
  });
  run_until(io, failure, [&] { return done; });
  const double took = seconds_since(start);
  const std::size_t bytes =
      std::accumulate(pages.begin(), pages.end(), std::size_t{0},
                      [](std::size_t sum, const Page& p) { return sum + p.bytes; });
  std::printf("  LIST %-11s %5zu response(s), %7.1f MB in %6.3f s = %6.0f MB/s",
              limit > 0 ? "(500/page)" : "(unpaged)", pages.size(), bytes / 1e6, took,
              bytes / 1e6 / took);
  if (pages.size() >= 20) {
    auto mean_ms = [](auto first, auto last) {
      return 1e3 *
             std::accumulate(first, last, 0.0,
                             [](double sum, const Page& p) { return sum + p.seconds; }) /
             static_cast<double>(std::distance(first, last));
    };
    std::printf("; a page: first ten %.2f ms, last ten %.2f ms",
                mean_ms(pages.begin(), pages.begin() + 10), mean_ms(pages.end() - 10, pages.end()));
  }
  std::printf("\n");
}

struct Watching {
  std::size_t events = 0;
  std::size_t bytes = 0;
  bool started = false;
};

asio::awaitable<void> watch(rg::client::RestClient& client, std::string from, std::size_t events,
                            Watching& state) {
  rg::client::WatchOptions options;
  options.resource_version = std::move(from);
  rg::client::BodyReader body = co_await client.watch(rg::client::resources::pods(), options);
  state.started = true;
  while (state.events < events) {
    const std::string_view piece = co_await body.read_some();
    if (piece.empty()) throw std::runtime_error("a watch ended before all events arrived");
    state.bytes += piece.size();
    state.events += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
  }
}

void watch_fan_out(asio::io_context& io, rg::client::RestClient& client, rg::sim::Server& server,
                   std::size_t watchers, std::size_t events) {
  const auto& type = *server.resources().find("", "v1", "pods");
  const auto pods = server.store().list(type, "default");
  std::vector<rg::sim::ObjectPtr> targets;
  for (const auto& pod : pods->items) {
    if (targets.size() == events) break;
    targets.push_back(pod);
  }
  if (targets.size() < events) throw std::runtime_error("fewer pods than events to make");

  std::vector<Watching> states(watchers);
  std::exception_ptr failure;
  const std::string from = std::to_string(server.store().resource_version());
  for (auto& state : states) {
    asio::co_spawn(io, watch(client, from, events, state), [&](std::exception_ptr error) {
      if (error && !failure) failure = error;
    });
  }
  run_until(io, failure, [&] {
    return std::all_of(states.begin(), states.end(), [](const Watching& s) { return s.started; });
  });

  const auto start = Clock::now();
  std::thread writer([&] {
    for (const auto& pod : targets) {
      server.store().update(type, pod->namespace_, pod->name,
                            [](const rg::sim::StoredObject&, boost::json::object object) {
                              object["metadata"].as_object()["labels"].as_object()["bench"] = "1";
                              return object;
                            });
    }
  });
  run_until(io, failure, [&] {
    return std::all_of(states.begin(), states.end(),
                       [&](const Watching& s) { return s.events >= events; });
  });
  const double took = seconds_since(start);
  writer.join();
  const std::size_t bytes =
      std::accumulate(states.begin(), states.end(), std::size_t{0},
                      [](std::size_t sum, const Watching& s) { return sum + s.bytes; });
  const double delivered = static_cast<double>(watchers * events);
  std::printf(
      "  watch fan-out: %zu watchers x %zu events = %.0f events, %.1f MB in %.3f s = %.0f "
      "events/s, %.0f MB/s\n",
      watchers, events, delivered, bytes / 1e6, took, delivered / took, bytes / 1e6 / took);
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int index, std::size_t fallback) {
    return argc > index ? std::strtoull(argv[index], nullptr, 10) : fallback;
  };
  const std::size_t pods = arg(1, 100'000);
  const std::size_t watchers = arg(2, 100);
  const std::size_t events = arg(3, 1000);
  if (pods == 0 || watchers == 0 || events == 0 || events > pods) {
    std::fprintf(stderr, "usage: sim_serving_bench [pods>0] [watchers>0] [events<=pods]\n");
    return 2;
  }
  try {
    rg::sim::Server server;
    seed(server, pods);
    asio::io_context io;
    rg::client::RestConfig config = server.rest_config();
    config.timeout = std::chrono::minutes(10);
    rg::client::RestClient client(config);
    list(io, client, 500);
    list(io, client, 0);
    watch_fan_out(io, client, server, watchers, events);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sim_serving_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
