// The multi-threaded test (run it under -Db_sanitize=thread): producer threads add, add_after
// and add_rate_limited while workers on four io threads get and done. Checks that no key is ever
// held by two workers at once and that every plain add is followed by a processing of that key.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "workqueue/item_fast_slow_rate_limiter.hpp"
#include "workqueue/rate_limiting_queue.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::workqueue::ItemFastSlowRateLimiter;
using rg::workqueue::MetricsProvider;
using rg::workqueue::RateLimitingQueue;

namespace {

constexpr int kKeys = 64;
constexpr int kProducers = 3;
constexpr int kAddsPerProducer = 20000;
constexpr int kWorkers = 8;
constexpr int kIoThreads = 4;

struct Ledger {
  std::mutex mu;
  std::set<int> in_flight;
  bool overlap = false;
  std::atomic<std::uint64_t> clock{1};
  std::array<std::atomic<std::uint64_t>, kKeys> last_add{};
  std::array<std::atomic<std::uint64_t>, kKeys> last_get{};
  std::atomic<std::uint64_t> processed{0};
};

void raise_to(std::atomic<std::uint64_t>& a, std::uint64_t v) {
  std::uint64_t cur = a.load();
  while (cur < v && !a.compare_exchange_weak(cur, v)) {
  }
}

asio::awaitable<void> worker(std::shared_ptr<RateLimitingQueue<int>> q, Ledger& ledger) {
  while (auto key = co_await q->get()) {
    raise_to(ledger.last_get[*key], ledger.clock.fetch_add(1));
    {
      std::lock_guard lock(ledger.mu);
      if (!ledger.in_flight.insert(*key).second) ledger.overlap = true;
    }
    // Let other workers run while this one holds the key.
    auto executor = co_await asio::this_coro::executor;
    co_await asio::post(executor, asio::use_awaitable);
    {
      std::lock_guard lock(ledger.mu);
      ledger.in_flight.erase(*key);
    }
    ledger.processed.fetch_add(1);
    if (*key % 3 == 0) q->forget(*key);
    q->done(*key);
  }
}

}  // namespace

TEST_CASE("several threads hammering one queue keep its guarantees") {
  asio::io_context io;
  auto provider = std::make_shared<MetricsProvider>();
  auto limiter = std::make_shared<ItemFastSlowRateLimiter<int>>(0ms, 1ms, 2);
  auto q = RateLimitingQueue<int>::create(io.get_executor(), limiter,
                                          {.name = "hammer", .metrics = provider});
  Ledger ledger;
  for (int w = 0; w < kWorkers; ++w) {
    asio::co_spawn(io, worker(q, ledger), [](const std::exception_ptr& e) {
      if (e) std::rethrow_exception(e);
    });
  }
  std::vector<std::thread> io_threads;
  io_threads.reserve(kIoThreads);
  for (int i = 0; i < kIoThreads; ++i) io_threads.emplace_back([&] { io.run(); });

  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAddsPerProducer; ++i) {
        const int key = (i * 7 + p * 13) % kKeys;
        switch (i % 8) {
          case 0:
            q->add_rate_limited(key);
            break;
          case 1:
            q->add_after(key, 1ms);
            break;
          default:
            raise_to(ledger.last_add[key], ledger.clock.fetch_add(1));
            q->add(key);
        }
        if (i % 1000 == 0) (void)provider->collect();  // a scrape in the middle of it all
      }
    });
  }
  for (auto& t : producers) t.join();
  q->shut_down();  // queued keys are still handed out; waiting workers then return
  for (auto& t : io_threads) t.join();

  MESSAGE("keys processed: " << ledger.processed.load());
  CHECK(ledger.processed.load() >= kKeys);
  CHECK_FALSE(ledger.overlap);
  CHECK(q->len() == 0);
  for (int k = 0; k < kKeys; ++k) {
    INFO("key " << k);
    CHECK(ledger.last_get[k].load() > ledger.last_add[k].load());
  }
  const auto metrics = provider->collect();
  REQUIRE(metrics.size() == 1);
  CHECK(metrics[0].second.depth == 0);
  CHECK(metrics[0].second.queue_duration.count() == ledger.processed.load());
  CHECK(metrics[0].second.work_duration.count() == ledger.processed.load());
}
