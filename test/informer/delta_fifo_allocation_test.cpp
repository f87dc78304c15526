// DeltaFIFO when an allocation fails while it queues a key (its table growing, a new key's delta
// list, its queue's next block): the exception reaches the producer and the FIFO stays whole --
// every key in it is popped once, with its deltas -- and takes the next change of that key; a
// change that was never queued does not count the FIFO as populated (HasSynced).
// A binary of its own: it replaces the global operator new to fail the nth allocation from a
// chosen moment.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>

#include <cstdlib>
#include <map>
#include <new>
#include <string>

#include "informer/delta_fifo.hpp"
#include "test/informer/run_coro.hpp"
#include "test/informer/test_objects.hpp"

namespace {

// 0: allocations succeed; n > 0: the nth allocation from now on this thread throws.
thread_local long fail_countdown = 0;

}  // namespace

void* operator new(std::size_t size) {
  if (fail_countdown > 0 && --fail_countdown == 0) throw std::bad_alloc();
  if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
  throw std::bad_alloc();
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }

using namespace rg::informer;
using namespace rg::informer::test;
namespace asio = boost::asio;

namespace {

// Adds `pod` with the nth allocation of the add failing; true when the add threw bad_alloc.
bool add_failing_at(asio::io_context& io, DeltaFIFO<TestPod>& fifo, PodPtr pod, long nth) {
  bool threw = false;
  auto add = [&]() -> asio::awaitable<void> {
    auto queueing = fifo.add(std::move(pod));  // its frame made before the countdown starts
    fail_countdown = nth;
    try {
      co_await std::move(queueing);
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    fail_countdown = 0;
  };
  run_coro(io, add());
  return threw;
}

// Pops until empty: each key's delta count (a key popped twice, or without deltas, fails).
std::map<std::string, std::size_t> pop_all(asio::io_context& io, DeltaFIFO<TestPod>& fifo) {
  std::map<std::string, std::size_t> popped;
  while (fifo.size() > 0) {
    std::string key;
    std::size_t count = 0;
    REQUIRE(run_coro(io, fifo.pop([&](Deltas<TestPod>&& deltas, bool) {
      count = deltas.size();
      if (count != 0) key = std::string(object_of<TestPod>(deltas.back().object)->metadata.name);
    })));
    CHECK_MESSAGE(count != 0, "a key was popped without deltas");
    CHECK_MESSAGE(!popped.contains(key), "key " << key << " was popped twice");
    popped[key] = count;
  }
  return popped;
}

}  // namespace

TEST_CASE("a failed allocation while queueing a new key leaves the FIFO whole") {
  // The keys queued before decide which allocation a new key needs (the queue's next block
  // comes every few keys, the table grows at its load limits); each of the first allocations
  // of the add fails in turn, until an add needs none of them.
  int failures = 0;
  for (int queued = 0; queued <= 40; ++queued) {
    for (long nth = 1;; ++nth) {
      CAPTURE(queued);
      CAPTURE(nth);
      asio::io_context io;
      DeltaFIFO<TestPod> fifo({});
      for (int i = 0; i < queued; ++i)
        REQUIRE(run_coro(io, fifo.add(make_pod("ns", "before-" + std::to_string(i), "1"))));
      const bool threw = add_failing_at(io, fifo, make_pod("ns", "new", "1"), nth);
      CHECK(fifo.size() == static_cast<std::size_t>(queued) + (threw ? 0 : 1));
      // The key's next change is queued and popped as any other.
      REQUIRE(run_coro(io, fifo.update(make_pod("ns", "new", "2"))));
      const auto popped = pop_all(io, fifo);
      CHECK(popped.size() == static_cast<std::size_t>(queued) + 1);
      REQUIRE(popped.contains("new"));
      CHECK(popped.at("new") == (threw ? 1 : 2));
      if (!threw) break;
      ++failures;
    }
  }
  CHECK(failures > 40);  // the countdown did reach the FIFO's own allocations
}

TEST_CASE("a first add that fails to allocate does not make the FIFO synced") {
  // HasSynced is "populated and the initial items popped": a change that was never queued
  // populates nothing, so a FIFO that has queued nothing yet is still not synced.
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  REQUIRE(add_failing_at(io, fifo, make_pod("ns", "first", "1"), 1));
  CHECK(fifo.size() == 0);
  CHECK_FALSE(fifo.has_synced());
  REQUIRE(run_coro(io, fifo.add(make_pod("ns", "first", "2"))));
  CHECK(fifo.has_synced());
}

TEST_CASE("a change that fails to allocate while moving the first list into the table loses none") {
  // The first list is kept as it came until a change arrives; the change moves what is left of
  // it into the table key by key, and any of those allocations may fail: the keys not yet moved
  // stay in the list, popped after the moved ones, and the next change moves them.
  int failures = 0;
  for (long nth = 1;; ++nth) {
    CAPTURE(nth);
    asio::io_context io;
    DeltaFIFO<TestPod> fifo({});
    std::vector<PodPtr> list;
    for (int i = 0; i < 20; ++i) list.push_back(make_pod("ns", "k" + std::to_string(i), "1"));
    REQUIRE(run_coro(io, fifo.replace(std::move(list), "1")));
    for (int i = 0; i < 3; ++i) REQUIRE(run_coro(io, fifo.pop([](Deltas<TestPod>&&, bool) {})));

    const bool threw = add_failing_at(io, fifo, make_pod("ns", "k10", "2"), nth);
    REQUIRE(run_coro(io, fifo.update(make_pod("ns", "k10", "3"))));
    CHECK(fifo.size() == 17);
    std::vector<std::string> order;
    while (fifo.size() > 0) {
      REQUIRE(run_coro(io, fifo.pop([&](Deltas<TestPod>&& deltas, bool) {
        REQUIRE(!deltas.empty());
        const std::string name(object_of<TestPod>(deltas.back().object)->metadata.name);
        if (name == "k10") CHECK(deltas.size() == (threw ? 2 : 3));
        order.push_back(name);
      })));
    }
    std::vector<std::string> expected;
    for (int i = 3; i < 20; ++i) expected.push_back("k" + std::to_string(i));
    CHECK(order == expected);
    CHECK(fifo.has_synced());
    if (!threw) break;
    ++failures;
  }
  CHECK(failures > 17);  // the countdown reached the allocations of moving the list
}
