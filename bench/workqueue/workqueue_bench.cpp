// workqueue_bench: add+get+done cycles per second of workqueue::Queue, the figure client-go's
// util/workqueue is compared on. Each worker coroutine loops add(key) -> co_await get() -> done
// (the end of get()'s Claim); one cycle is one key got and done. The first worker through its
// cycles shuts the queue down and the others stop there: with repeated keys an add may merge into a
// copy of its key still queued or in flight, so a worker could otherwise wait for a key nobody
// adds. (On one io thread a worker never suspends while keys are queued, so the first worker does
// all the cycles.) Scenarios: 1 and 4 workers (on 1 io thread, and 4 workers on 4 io threads),
// metrics off and on, many distinct keys vs a few repeated ones, string and int keys.
//
// Usage: workqueue_bench [cycles [string|int]]
//   cycles: per worker (default 4000000); string|int: only those keys.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "bench/process_stats.hpp"
#include "workqueue/metrics.hpp"
#include "workqueue/queue.hpp"

namespace asio = boost::asio;
using rg::bench::process_cpu_seconds;
using rg::workqueue::MetricsProvider;
using rg::workqueue::Queue;
using rg::workqueue::QueueOptions;

namespace {

constexpr std::size_t kDistinctKeys = 1'000'000;
constexpr std::size_t kRepeatedKeysPerWorker = 16;

struct Scenario {
  int workers;
  int threads;
  bool metrics;
  bool distinct;
};

// Keys like the operator's: "namespace/name", longer than std::string's inline buffer.
std::string string_key(std::size_t i) { return "default/web-" + std::to_string(100000 + i); }
int int_key(std::size_t i) { return static_cast<int>(i); }

template <class Key>
asio::awaitable<void> worker(std::shared_ptr<Queue<Key>> q, const std::vector<Key>& keys,
                             std::size_t first, std::size_t stride, std::size_t span, long cycles,
                             long& processed) {
  std::size_t slot = 0;
  for (long i = 0; i < cycles; ++i) {
    q->add(keys[first + slot * stride]);
    if (++slot == span) slot = 0;
    const auto key = co_await q->get();
    if (!key) co_return;  // another worker finished its share first
    ++processed;
  }  // each iteration's Claim ends there: done
  q->shut_down();
}

struct Rate {
  double per_wall_second;
  double per_cpu_second;
};

template <class Key>
Rate run(const Scenario& s, const std::vector<Key>& keys, long cycles) {
  QueueOptions options;
  if (s.metrics) {
    options.name = "bench";
    options.metrics = std::make_shared<MetricsProvider>();
  }
  auto q = Queue<Key>::create(options);
  asio::io_context io(s.threads);
  std::vector<long> processed(s.workers, 0);  // each worker writes only its own
  for (int w = 0; w < s.workers; ++w) {
    // Distinct: the workers interleave over the whole pool. Repeated: each its own 16 keys.
    const std::size_t first = s.distinct ? w : w * kRepeatedKeysPerWorker;
    const std::size_t stride = s.distinct ? s.workers : 1;
    const std::size_t span = s.distinct ? keys.size() / s.workers : kRepeatedKeysPerWorker;
    asio::co_spawn(io, worker<Key>(q, keys, first, stride, span, cycles, processed[w]),
                   asio::detached);
  }
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  std::vector<std::thread> threads;
  for (int t = 1; t < s.threads; ++t) threads.emplace_back([&] { io.run(); });
  io.run();
  for (auto& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  double total = 0;
  for (long p : processed) total += static_cast<double>(p);
  return {total / seconds, total / cpu_seconds};
}

template <class Key>
void run_all(const char* key_type, Key (*make_key)(std::size_t), long cycles) {
  std::vector<Key> keys;
  keys.reserve(kDistinctKeys);
  for (std::size_t i = 0; i < kDistinctKeys; ++i) keys.push_back(make_key(i));
  const Scenario scenarios[] = {
      {1, 1, false, true},  {1, 1, true, true},  {1, 1, false, false}, {1, 1, true, false},
      {4, 1, false, true},  {4, 1, true, true},  {4, 4, false, true},  {4, 4, true, true},
      {4, 4, false, false}, {4, 4, true, false},
  };
  for (const Scenario& s : scenarios) {
    const Rate rate = run(s, keys, cycles);
    std::printf(
        "%-6s  %d worker(s)  %d thread(s)  metrics %-3s  %-8s keys  %6.2f M cycles/s wall  "
        "%6.2f M cycles/cpu-s\n",
        key_type, s.workers, s.threads, s.metrics ? "on" : "off",
        s.distinct ? "distinct" : "repeated", rate.per_wall_second / 1e6,
        rate.per_cpu_second / 1e6);
    std::fflush(stdout);  // progress shows when the output is piped to a file
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long cycles = argc > 1 ? std::atol(argv[1]) : 4'000'000;
  const char* only = argc > 2 ? argv[2] : "";
  const bool any = only[0] == '\0';
  if (cycles <= 0 || argc > 3 ||
      (!any && std::strcmp(only, "string") != 0 && std::strcmp(only, "int") != 0)) {
    std::fprintf(stderr, "usage: %s [cycles-per-worker > 0 [string|int]]\n", argv[0]);
    return 2;
  }
  if (any || std::strcmp(only, "string") == 0) run_all<std::string>("string", string_key, cycles);
  if (any || std::strcmp(only, "int") == 0) run_all<int>("int", int_key, cycles);
}
