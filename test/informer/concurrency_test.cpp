// Producer, consumer, handler delivery, a handler registered mid-stream and cache readers, all
// on different threads at once, through a small DeltaFIFO (so back-pressure kicks in
// constantly). Meaningful under ThreadSanitizer; see test/informer/meson.build for the build.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "informer/delta_fifo.hpp"
#include "informer/detail/handle_deltas.hpp"
#include "informer/detail/shared_processor.hpp"
#include "informer/indexer.hpp"
#include "informer/lister.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;
using rg::informer::detail::DeltaHandler;
using rg::informer::detail::SharedProcessor;
namespace asio = boost::asio;

namespace {

constexpr std::string_view kSentinel = "ns/zz-sentinel";

/// A handler's view of the world: the last resourceVersion (or "deleted") heard per key.
/// Safe to read from the test thread once the sentinel key has been heard.
struct View {
  std::mutex mutex;
  std::condition_variable heard_sentinel;
  std::map<std::string, std::string> last_seen;

  void record(const std::string& key, const std::string& rv) {
    std::lock_guard lock(mutex);
    last_seen[key] = rv;
    if (key == kSentinel) heard_sentinel.notify_all();
  }
  void wait_for_sentinel() {
    std::unique_lock lock(mutex);
    heard_sentinel.wait(lock, [&] { return last_seen.contains(std::string(kSentinel)); });
  }
  ResourceEventHandlerFuncs<TestPod> handler() {
    return {
        .on_add = [this](const PodPtr& p,
                         bool) { record(meta_namespace_key(*p), p->metadata.resource_version); },
        .on_update =
            [this](const PodPtr&, const PodPtr& p) {
              record(meta_namespace_key(*p), p->metadata.resource_version);
            },
        .on_delete =
            [this](const ObjectOrTombstone<TestPod>& d) { record(key_of<TestPod>(d), "deleted"); }};
  }
};

}  // namespace

TEST_CASE("producer, consumer, handlers and readers on separate threads") {
  constexpr int kKeys = 20;
  constexpr int kRounds = 100;

  auto indexers = default_indexers<TestPod>();
  indexers.emplace("spec.nodeName",
                   index_by<TestPod>([](const TestPod& p) { return p.node_name; }));
  Indexer<TestPod> cache(std::move(indexers));
  DeltaFIFO<TestPod> fifo({.capacity = 8, .known_objects = &cache});
  SharedProcessor<TestPod> processor([&] { return fifo.has_synced(); });
  DeltaHandler<TestPod> handler(cache, processor);

  View early;
  auto early_listener = handler.add_event_handler("early", early.handler());

  auto pod = [](int key, int version) {
    return make_pod("ns", "p" + std::to_string(key), std::to_string(version),
                    "node-" + std::to_string(version % 3));
  };

  asio::io_context producer_io, consumer_io, handler_io;
  auto produce = [&]() -> asio::awaitable<void> {
    std::vector<PodPtr> initial;
    for (int k = 0; k < kKeys; ++k) initial.push_back(pod(k, 1));
    co_await fifo.replace(std::move(initial), "1");
    int version = 1;
    for (int round = 0; round < kRounds; ++round) {
      for (int k = 0; k < kKeys; ++k) {
        PodPtr next = pod(k, ++version);
        co_await fifo.update(std::move(next));
      }
      if (round % 10 == 0) co_await fifo.resync();  // Sync deltas read the cache concurrently
    }
    for (int k = 0; k < kKeys; k += 2) {  // delete every other key at the end
      PodPtr last = pod(k, ++version);
      co_await fifo.remove(std::move(last));
    }
    fifo.close();
  };
  auto consume = [&]() -> asio::awaitable<void> {
    auto process = [&](Deltas<TestPod>&& deltas, bool initial) {
      handler.handle_deltas(std::move(deltas), initial);
    };
    while (co_await fifo.pop(process)) {
    }
  };
  asio::co_spawn(producer_io, produce(), asio::detached);
  asio::co_spawn(consumer_io, consume(), asio::detached);
  asio::co_spawn(handler_io, processor.run(), asio::detached);

  std::atomic<bool> stop_readers = false;
  auto read = [&] {
    Lister<TestPod> lister(cache);
    while (!stop_readers) {
      for (const auto& p : cache.by_index("spec.nodeName", "node-1")) {
        CHECK(std::stoi(p->metadata.resource_version) % 3 == 1);
      }
      (void)lister.namespace_("ns").list();
      (void)cache.get_by_key("ns/p3");
    }
  };
  std::thread reader1(read), reader2(read);
  std::thread producer([&] { producer_io.run(); });
  std::thread consumer([&] { consumer_io.run(); });
  std::thread handlers([&] { handler_io.run(); });

  // Registered while deltas flow: it gets the cache as adds, then every later change, so it
  // must end with the same view as the cache, whenever exactly it came in.
  View late;
  auto late_listener = handler.add_event_handler("late", late.handler());

  producer.join();
  consumer.join();
  stop_readers = true;
  reader1.join();
  reader2.join();

  // Each handler hears changes in order: once it has heard this, it has heard everything.
  Deltas<TestPod> sentinel{{DeltaType::kAdded, make_pod("ns", "zz-sentinel", "1")}};
  handler.handle_deltas(std::move(sentinel), false);
  early.wait_for_sentinel();
  late.wait_for_sentinel();
  processor.stop();
  handlers.join();

  CHECK(fifo.has_synced());
  CHECK(early_listener->has_synced());
  CHECK(late_listener->has_synced());
  CHECK(cache.size() == kKeys / 2 + 1);
  const int last_update = 1 + kRounds * kKeys;
  for (int k = 0; k < kKeys; ++k) {
    CAPTURE(k);
    const std::string key = "ns/p" + std::to_string(k);
    const std::string final_rv = std::to_string(last_update - kKeys + 1 + k);
    if (k % 2 == 0) {
      CHECK(cache.get_by_key(key) == nullptr);
      CHECK(early.last_seen[key] == "deleted");
      CHECK((!late.last_seen.contains(key) || late.last_seen[key] == "deleted"));
    } else {
      REQUIRE(cache.get_by_key(key));
      CHECK(cache.get_by_key(key)->metadata.resource_version == final_rv);
      CHECK(early.last_seen[key] == final_rv);
      CHECK(late.last_seen[key] == final_rv);
    }
  }
}
