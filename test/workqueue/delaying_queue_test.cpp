// Tests of workqueue/detail/delay_heap.hpp and workqueue/delaying_queue.hpp: ready-time ordering,
// earliest-wins, a plain add overriding a delay, shutdown dropping delayed keys.
#include "workqueue/delaying_queue.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "test/workqueue/run_coroutine.hpp"
#include "workqueue/detail/delay_heap.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::workqueue::DelayingQueue;
using rg::workqueue::TimePoint;
using rg::workqueue::detail::DelayHeap;
using rg::workqueue::test::run;
using Delaying = DelayingQueue<std::string>;

namespace {

const TimePoint kStart{std::chrono::hours(1)};

std::vector<std::string> pop_ready(DelayHeap<std::string>& heap, TimePoint now) {
  std::vector<std::string> out;
  heap.pop_ready(now, [&](std::string&& k) { out.push_back(std::move(k)); });
  return out;
}

// Takes `n` keys, marking each done, then shuts the queue down.
asio::awaitable<std::vector<std::string>> take(std::shared_ptr<Delaying> q, int n) {
  std::vector<std::string> seen;
  for (int i = 0; i < n; ++i) {
    const auto key = co_await q->get();
    if (!key) break;
    seen.push_back(*key);
  }  // the key's Claim ends: done
  q->shut_down();
  co_return seen;
}

}  // namespace

TEST_CASE("the delay heap hands keys out in ready-time order") {
  DelayHeap<std::string> heap;
  CHECK(heap.push("c", kStart + 30ms));
  CHECK(heap.push("a", kStart + 10ms));
  CHECK_FALSE(heap.push("b", kStart + 20ms));  // not earlier than the head: no re-arm needed
  CHECK(heap.size() == 3);
  CHECK(heap.next_ready() == kStart + 10ms);
  CHECK(pop_ready(heap, kStart + 5ms).empty());
  CHECK(pop_ready(heap, kStart + 25ms) == std::vector<std::string>{"a", "b"});
  CHECK(heap.next_ready() == kStart + 30ms);
  CHECK(pop_ready(heap, kStart + 30ms) == std::vector<std::string>{"c"});
  CHECK(heap.next_ready() == std::nullopt);
  CHECK(heap.size() == 0);
}

TEST_CASE("the delay heap keeps equal ready times in scheduling order") {
  DelayHeap<std::string> heap;
  for (const char* k : {"x", "y", "z", "w"}) heap.push(k, kStart);
  CHECK(pop_ready(heap, kStart) == std::vector<std::string>{"x", "y", "z", "w"});
}

TEST_CASE("a key delayed twice is ready at the earlier time, once") {
  DelayHeap<std::string> heap;
  SUBCASE("earlier second") {
    heap.push("k", kStart + 50ms);
    CHECK(heap.push("k", kStart + 20ms));
  }
  SUBCASE("later second") {
    heap.push("k", kStart + 20ms);
    CHECK_FALSE(heap.push("k", kStart + 50ms));
  }
  CHECK(heap.size() == 1);
  CHECK(heap.next_ready() == kStart + 20ms);
  CHECK(pop_ready(heap, kStart + 20ms) == std::vector<std::string>{"k"});
  CHECK(pop_ready(heap, kStart + 1h).empty());
  CHECK(heap.next_ready() == std::nullopt);
}

TEST_CASE("a key scheduled again after firing fires again, once") {
  DelayHeap<std::string> heap;
  heap.push("k", kStart + 50ms);
  heap.push("k", kStart + 10ms);  // leaves a stale entry at +50ms behind
  CHECK(pop_ready(heap, kStart + 10ms) == std::vector<std::string>{"k"});
  heap.push("k", kStart + 50ms);  // same time as the stale entry
  CHECK(pop_ready(heap, kStart + 50ms) == std::vector<std::string>{"k"});
  CHECK(heap.size() == 0);
}

TEST_CASE("add_after with no delay adds at once") {
  asio::io_context io;
  auto q = Delaying::create(io.get_executor());
  q->add_after("k", 0ms);
  q->add_after("j", -5ms);
  CHECK(q->len() == 2);
  CHECK(q->delayed() == 0);
}

TEST_CASE("delayed keys become ready in ready-time order") {
  asio::io_context io;
  auto q = Delaying::create(io.get_executor());
  q->add_after("c", 30ms);
  q->add_after("a", 10ms);
  q->add_after("b", 20ms);
  CHECK(q->len() == 0);
  CHECK(q->delayed() == 3);
  CHECK(run(io, take(q, 3)) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("a key delayed twice becomes ready at the earlier time") {
  asio::io_context io;
  auto q = Delaying::create(io.get_executor());
  q->add_after("k", 1h);
  q->add_after("k", 1ms);
  CHECK(q->delayed() == 1);
  // With the later time winning this would wait an hour (and the test time out).
  CHECK(run(io, take(q, 1)) == std::vector<std::string>{"k"});
  CHECK(q->delayed() == 0);
}

TEST_CASE("a key added plainly while delayed is ready at once") {
  asio::io_context io;
  auto q = Delaying::create(io.get_executor());
  q->add_after("k", 1h);
  q->add("k");
  CHECK(q->len() == 1);
  CHECK(q->delayed() == 1);  // as in client-go, the delayed entry stays and fires later
  CHECK(run(io, take(q, 1)) == std::vector<std::string>{"k"});
}

TEST_CASE("shut_down drops delayed keys and stops the timer") {
  asio::io_context io;
  auto q = Delaying::create(io.get_executor());
  q->add_after("k", 1h);
  q->shut_down();
  CHECK(q->delayed() == 0);
  io.run();  // returns at once: the hour-long wait was cancelled
  q->add_after("j", 0ms);
  CHECK(q->len() == 0);
}

TEST_CASE("a queue destroyed with a pending delay leaves the io_context clean") {
  asio::io_context io;
  {
    auto q = Delaying::create(io.get_executor());
    q->add_after("k", 1h);
  }
  io.run();  // the cancelled wait completes and finds the queue gone
  CHECK(io.stopped());
}
