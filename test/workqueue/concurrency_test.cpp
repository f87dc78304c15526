// The multi-threaded tests (scripts/test.sh --tsan runs them under ThreadSanitizer): producer
// threads add, add_after and add_rate_limited while workers on several io threads, or on several
// io_contexts, get and done (or hand their Claims to other threads to be done there); shutdown
// and drain come from yet another thread. Each checks that no key is ever held by two workers at
// once and that every plain add is followed by a processing of that key.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "workqueue/item_fast_slow_rate_limiter.hpp"
#include "workqueue/queue.hpp"
#include "workqueue/rate_limiting_queue.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::workqueue::ItemFastSlowRateLimiter;
using rg::workqueue::MetricsProvider;
using rg::workqueue::Queue;
using rg::workqueue::RateLimitingQueue;

namespace {

constexpr int kKeys = 64;
constexpr int kProducers = 3;
constexpr int kAddsPerProducer = 20000;
constexpr int kWorkers = 8;
constexpr int kIoThreads = 4;

// What the workers did, recorded from every thread. Keys are numbered 0..kKeys-1.
struct Ledger {
  std::mutex mu;
  std::set<int> in_flight;
  bool overlap = false;
  std::atomic<std::uint64_t> clock{1};
  std::array<std::atomic<std::uint64_t>, kKeys> last_add{};
  std::array<std::atomic<std::uint64_t>, kKeys> last_get{};
  std::atomic<std::uint64_t> processed{0};
  std::atomic<int> workers_returned{0};

  static void raise_to(std::atomic<std::uint64_t>& a, std::uint64_t v) {
    std::uint64_t cur = a.load();
    while (cur < v && !a.compare_exchange_weak(cur, v)) {
    }
  }

  // Call right before a plain add of key k.
  void adding(int k) { raise_to(last_add[k], clock.fetch_add(1)); }

  void got(int k) {
    raise_to(last_get[k], clock.fetch_add(1));
    std::lock_guard lock(mu);
    if (!in_flight.insert(k).second) overlap = true;
  }

  void finishing(int k) {
    {
      std::lock_guard lock(mu);
      in_flight.erase(k);
    }
    processed.fetch_add(1);
  }

  // The guarantees every test here checks once all workers have returned.
  void check_every_add_processed() {
    MESSAGE("keys processed: " << processed.load());
    CHECK(workers_returned.load() == kWorkers);
    CHECK_FALSE(overlap);
    CHECK(in_flight.empty());
    for (int k = 0; k < kKeys; ++k) {
      INFO("key " << k);
      CHECK(last_get[k].load() > last_add[k].load());
    }
  }
};

// Holds each key it gets across a post(), so other workers run while it holds the key.
template <class Q, class ToIndex>
asio::awaitable<void> worker(std::shared_ptr<Q> q, Ledger& ledger, ToIndex to_index) {
  while (auto key = co_await q->get()) {
    const int k = to_index(*key);
    ledger.got(k);
    auto executor = co_await asio::this_coro::executor;
    co_await asio::post(executor, asio::use_awaitable);
    ledger.finishing(k);
    if constexpr (requires { q->forget(*key); }) {
      if (k % 3 == 0) q->forget(*key);
    }
  }  // the key's Claim ends: done
  ledger.workers_returned.fetch_add(1);
}

void rethrow(const std::exception_ptr& e) {
  if (e) std::rethrow_exception(e);
}

// Runs `body` on kProducers threads at once, as body(producer_index), and waits for them.
template <class F>
void run_producers(F body) {
  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) producers.emplace_back([&body, p] { body(p); });
  for (auto& t : producers) t.join();
}

std::vector<std::thread> run_io(asio::io_context& io, int threads) {
  std::vector<std::thread> io_threads;
  io_threads.reserve(threads);
  for (int i = 0; i < threads; ++i) io_threads.emplace_back([&io] { io.run(); });
  return io_threads;
}

void join(std::vector<std::thread>& threads) {
  for (auto& t : threads) t.join();
}

int key_of(int producer, int i) { return (i * 7 + producer * 13) % kKeys; }

}  // namespace

TEST_CASE("several threads hammering one rate-limited queue keep its guarantees") {
  asio::io_context io;
  auto provider = std::make_shared<MetricsProvider>();
  auto limiter = std::make_shared<ItemFastSlowRateLimiter<int>>(0ms, 1ms, 2);
  auto q = RateLimitingQueue<int>::create(io.get_executor(), limiter,
                                          {.name = "hammer", .metrics = provider});
  Ledger ledger;
  const auto as_index = [](int k) { return k; };
  for (int w = 0; w < kWorkers; ++w) asio::co_spawn(io, worker(q, ledger, as_index), rethrow);
  auto io_threads = run_io(io, kIoThreads);

  run_producers([&](int p) {
    for (int i = 0; i < kAddsPerProducer; ++i) {
      const int key = key_of(p, i);
      switch (i % 8) {
        case 0:
          q->add_rate_limited(key);
          break;
        case 1:
          q->add_after(key, 1ms);
          break;
        default:
          ledger.adding(key);
          q->add(key);
      }
      if (i % 1000 == 0) (void)provider->collect();  // a scrape in the middle of it all
    }
  });
  q->shut_down();  // queued keys are still handed out; waiting workers then return
  join(io_threads);

  ledger.check_every_add_processed();
  CHECK(ledger.processed.load() >= kKeys);
  CHECK(q->len() == 0);
  const auto metrics = provider->collect();
  REQUIRE(metrics.size() == 1);
  CHECK(metrics[0].second.depth == 0);
  CHECK(metrics[0].second.queue_duration.count() == ledger.processed.load());
  CHECK(metrics[0].second.work_duration.count() == ledger.processed.load());
}

TEST_CASE("string keys from several threads, drained from another thread") {
  // Keys longer than std::string's inline buffer: the queue keeps and recycles their storage.
  std::vector<std::string> names;
  std::unordered_map<std::string, int> index;
  for (int k = 0; k < kKeys; ++k) {
    names.push_back("namespace-" + std::to_string(k) + "/deployment-name-" + std::to_string(k));
    index.emplace(names.back(), k);
  }
  asio::io_context io;
  auto q = Queue<std::string>::create(
      {.name = "strings", .metrics = std::make_shared<MetricsProvider>()});
  Ledger ledger;
  const auto to_index = [&index](const std::string& key) { return index.at(key); };
  for (int w = 0; w < kWorkers; ++w) asio::co_spawn(io, worker(q, ledger, to_index), rethrow);
  auto io_threads = run_io(io, kIoThreads);

  run_producers([&](int p) {
    for (int i = 0; i < kAddsPerProducer; ++i) {
      const int key = key_of(p, i);
      ledger.adding(key);
      if (i % 2 == 0) {
        q->add(names[key]);
      } else {
        q->add(std::string(names[key]));  // the rvalue overload moves the key in
      }
    }
  });
  // Drain from a thread that runs none of the workers.
  asio::io_context control;
  bool drained = false;
  asio::co_spawn(control, q->shut_down_with_drain(), [&](const std::exception_ptr& e) {
    rethrow(e);
    drained = true;
  });
  control.run();
  CHECK(drained);
  join(io_threads);

  ledger.check_every_add_processed();
  CHECK(q->len() == 0);
}

TEST_CASE("claims handed to other threads are done there") {
  asio::io_context io;
  asio::io_context finishers;  // two threads that end the workers' claims
  auto finishers_work = asio::make_work_guard(finishers);
  auto q = Queue<std::string>::create();
  Ledger ledger;
  const auto worker_fn = [&]() -> asio::awaitable<void> {
    while (auto key = co_await q->get()) {
      ledger.got(std::stoi(*key));
      asio::post(finishers, [&ledger, claim = std::move(key)] {
        ledger.finishing(std::stoi(*claim));  // read on this thread, then done with the lambda
      });
    }
    ledger.workers_returned.fetch_add(1);
  };
  for (int w = 0; w < kWorkers; ++w) asio::co_spawn(io, worker_fn(), rethrow);
  auto io_threads = run_io(io, kIoThreads);
  auto finisher_threads = run_io(finishers, 2);

  run_producers([&](int p) {
    for (int i = 0; i < kAddsPerProducer; ++i) {
      const int key = key_of(p, i);
      ledger.adding(key);
      q->add(std::to_string(key));
    }
  });
  q->shut_down();
  join(io_threads);
  finishers_work.reset();
  join(finisher_threads);

  // Not check_every_add_processed(): a key added again while its claim was out is queued once
  // more by that claim's done(), as in client-go, and here done() may come after shut_down() let
  // every worker return, so that last add is never handed out. What must hold is that no key
  // was ever held twice and every claim ended.
  MESSAGE("keys processed: " << ledger.processed.load());
  CHECK(ledger.workers_returned.load() == kWorkers);
  CHECK_FALSE(ledger.overlap);
  CHECK(ledger.in_flight.empty());
}

TEST_CASE("workers on two io_contexts share a queue, each resumed on its own") {
  asio::io_context a;
  asio::io_context b;
  auto q = Queue<int>::create();
  Ledger ledger;
  std::atomic<int> resumed_elsewhere{0};
  // Checks, after each get(), that the worker runs on a thread of its own io_context.
  const auto on_own_context = [&](asio::io_context& own) {
    return [&own, &resumed_elsewhere](int k) {
      if (!own.get_executor().running_in_this_thread()) resumed_elsewhere.fetch_add(1);
      return k;
    };
  };
  for (int w = 0; w < kWorkers; ++w) {
    asio::io_context& own = w % 2 == 0 ? a : b;
    asio::co_spawn(own, worker(q, ledger, on_own_context(own)), rethrow);
  }
  auto a_threads = run_io(a, 2);
  auto b_threads = run_io(b, 2);

  run_producers([&](int p) {
    for (int i = 0; i < kAddsPerProducer; ++i) {
      const int key = key_of(p, i);
      ledger.adding(key);
      q->add(key);
    }
  });
  q->shut_down();
  join(a_threads);
  join(b_threads);

  ledger.check_every_add_processed();
  CHECK(resumed_elsewhere.load() == 0);
}

TEST_CASE("shut_down from another thread wakes workers waiting on several io threads") {
  asio::io_context io;
  auto q = Queue<std::string>::create();
  Ledger ledger;
  const auto never = [](const std::string&) { return 0; };
  for (int w = 0; w < kWorkers; ++w) asio::co_spawn(io, worker(q, ledger, never), rethrow);
  auto io_threads = run_io(io, kIoThreads);
  q->shut_down();  // whether each worker is already waiting or not, it must return
  join(io_threads);
  CHECK(ledger.workers_returned.load() == kWorkers);
  CHECK(ledger.processed.load() == 0);
}
