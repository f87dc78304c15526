// informer_bench: throughput of the informer's hot paths on client/model's Pod.
//  - Indexer: adds, updates that move a pod between spec.nodeName values, by_index lookups,
//    and a full replace (a relist) -- per second.
//  - DeltaFIFO -> HandleDeltas -> one handler: watch events per second end to end, with the
//    producer (reflector side) and consumer on separate threads and a small capacity, so the
//    back-pressure path is part of the figure.
//
// Usage: informer_bench [pods]   (default 100000)
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/model/pod.hpp"
#include "informer/delta_fifo.hpp"
#include "informer/detail/handle_deltas.hpp"
#include "informer/detail/shared_processor.hpp"
#include "informer/indexer.hpp"

namespace asio = boost::asio;
using rg::client::Pod;
using namespace rg::informer;
using rg::informer::detail::DeltaHandler;
using rg::informer::detail::SharedProcessor;
using Clock = std::chrono::steady_clock;

namespace {

std::shared_ptr<const Pod> make_pod(std::size_t i, std::size_t version, std::size_t nodes) {
  auto pod = std::make_shared<Pod>();
  pod->metadata.namespace_ = "ns-" + std::to_string(i % 50);
  pod->metadata.name = "web-" + std::to_string(i);
  pod->metadata.resource_version = std::to_string(version);
  pod->metadata.labels = {{"app", "web"}};
  pod->spec.node_name = "node-" + std::to_string((i + version) % nodes);
  return pod;
}

Indexers<Pod> pod_indexers() {
  auto indexers = default_indexers<Pod>();
  indexers.emplace("spec.nodeName", index_by<Pod>([](const Pod& p) { return p.spec.node_name; }));
  return indexers;
}

void report(const char* what, std::size_t count, Clock::duration took) {
  const double seconds = std::chrono::duration<double>(took).count();
  std::printf("%-44s %10zu in %7.3f s  %12.0f /s\n", what, count, seconds, count / seconds);
}

template <class F>
void timed(const char* what, std::size_t count, F f) {
  const auto start = Clock::now();
  f();
  report(what, count, Clock::now() - start);
}

void bench_indexer(std::size_t pods) {
  constexpr std::size_t kNodes = 100;
  std::vector<std::shared_ptr<const Pod>> v1, v2;
  for (std::size_t i = 0; i < pods; ++i) {
    v1.push_back(make_pod(i, 1, kNodes));
    v2.push_back(make_pod(i, 2, kNodes));
  }
  Indexer<Pod> indexer(pod_indexers());
  timed("indexer add", pods, [&] {
    for (auto& pod : v1) indexer.add(pod);
  });
  timed("indexer update (node index moves)", pods, [&] {
    for (auto& pod : v2) indexer.update(pod);
  });
  std::size_t found = 0;
  const std::size_t lookups = 10'000;
  timed("indexer by_index(spec.nodeName)", lookups, [&] {
    for (std::size_t i = 0; i < lookups; ++i) {
      found += indexer.by_index("spec.nodeName", "node-" + std::to_string(i % kNodes)).size();
    }
  });
  timed("indexer replace (objects)", pods, [&] { indexer.replace(v1, "1"); });
  if (found == 0) std::puts("(no pods found: the benchmark is wrong)");
}

void bench_pipeline(std::size_t pods) {
  constexpr std::size_t kNodes = 100;
  constexpr std::size_t kUpdatesPerPod = 3;
  Indexer<Pod> cache(pod_indexers());
  DeltaFIFO<Pod> fifo({.capacity = 1024, .known_objects = &cache});
  SharedProcessor<Pod> processor([&] { return fifo.has_synced(); });
  DeltaHandler<Pod> handler(cache, processor);
  std::atomic<std::size_t> handled = 0;
  handler.add_event_handler("count", {.on_add = [&](const auto&, bool) { ++handled; },
                                      .on_update = [&](const auto&, const auto&) { ++handled; },
                                      .on_delete = [&](const auto&) { ++handled; }});

  std::vector<std::shared_ptr<const Pod>> initial;
  for (std::size_t i = 0; i < pods; ++i) initial.push_back(make_pod(i, 1, kNodes));
  std::vector<std::shared_ptr<const Pod>> updates;
  for (std::size_t v = 2; v < 2 + kUpdatesPerPod; ++v) {
    for (std::size_t i = 0; i < pods; ++i) updates.push_back(make_pod(i, v, kNodes));
  }

  asio::io_context producer_io, consumer_io, handler_io;
  auto produce = [&]() -> asio::awaitable<void> {
    co_await fifo.replace(std::move(initial), "1");
    for (auto& pod : updates) co_await fifo.update(pod);
    fifo.close();
  };
  auto consume = [&]() -> asio::awaitable<void> {
    auto process = [&](Deltas<Pod>&& deltas, bool initial_list) {
      handler.handle_deltas(std::move(deltas), initial_list);
    };
    while (co_await fifo.pop(process)) {
    }
  };
  asio::co_spawn(producer_io, produce(), asio::detached);
  asio::co_spawn(consumer_io, consume(), asio::detached);
  asio::co_spawn(handler_io, processor.run(), asio::detached);
  const std::size_t events = pods * (1 + kUpdatesPerPod);
  timed("list + watch events -> FIFO -> cache -> handler", events, [&] {
    std::thread producer([&] { producer_io.run(); });
    std::thread consumer([&] { consumer_io.run(); });
    std::thread handlers([&] { handler_io.run(); });
    producer.join();
    consumer.join();
    while (handled.load() < events) std::this_thread::yield();  // the handler's backlog
    processor.stop();
    handlers.join();
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pods = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
  if (pods == 0) {
    std::fprintf(stderr, "usage: informer_bench [pods]  (a positive number; default 100000)\n");
    return 2;
  }
  bench_indexer(pods);
  bench_pipeline(pods);
  return 0;
}
