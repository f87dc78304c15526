// The handler side of the informer: fan-out to several handlers through their own buffers,
// resyncs only to handlers that asked, per-handler has_synced, late handlers, failing handlers.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "informer/delta_fifo.hpp"
#include "informer/detail/handle_deltas.hpp"
#include "informer/detail/shared_processor.hpp"
#include "informer/indexer.hpp"
#include "test/informer/run_coro.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;
using rg::informer::detail::DeltaHandler;
using rg::informer::detail::SharedProcessor;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

/// A handler that writes what it hears into a log.
ResourceEventHandlerFuncs<TestPod> recording(std::vector<std::string>& log) {
  return {
      .on_add =
          [&log](const PodPtr& p, bool initial) {
            log.push_back("add " + p->metadata.name + (initial ? " initial" : ""));
          },
      .on_update =
          [&log](const PodPtr& o, const PodPtr& n) {
            log.push_back("update " + n->metadata.name + " " + o->metadata.resource_version + "->" +
                          n->metadata.resource_version);
          },
      .on_delete =
          [&log](const ObjectOrTombstone<TestPod>& d) {
            log.push_back("delete " + key_of<TestPod>(d));
          },
  };
}

/// An informer's consumer side on one io_context, with a controllable clock and sync flag.
struct Fixture {
  asio::io_context io;
  Clock::time_point now{};
  bool upstream_synced = false;
  Indexer<TestPod> cache;
  SharedProcessor<TestPod> processor{[this] { return upstream_synced; }, [this] { return now; }};
  DeltaHandler<TestPod> handler{cache, processor};

  void start() { asio::co_spawn(io, processor.run(), asio::detached); }
  void apply(DeltaType type, PodPtr pod, bool initial = false) {
    Deltas<TestPod> deltas{{type, std::move(pod)}};
    handler.handle_deltas(std::move(deltas), initial);
  }
  void deliver() { poll(io); }
  ~Fixture() {
    processor.stop();
    io.restart();
    io.run();  // returns once every delivery loop has finished
  }
};

}  // namespace

TEST_CASE("every handler hears every change, in order") {
  Fixture f;
  std::vector<std::string> a, b;
  f.handler.add_event_handler("a", recording(a));
  f.handler.add_event_handler("b", recording(b));
  f.start();
  f.apply(DeltaType::kAdded, make_pod("ns", "p", "1"));
  f.apply(DeltaType::kUpdated, make_pod("ns", "p", "2"));
  f.apply(DeltaType::kDeleted, make_pod("ns", "p", "3"));
  f.deliver();
  const std::vector<std::string> expected{"add p", "update p 1->2", "delete ns/p"};
  CHECK(a == expected);
  CHECK(b == expected);
}

TEST_CASE("notifications buffer while a handler is not running, and are accounted") {
  Fixture f;
  std::vector<std::string> a;
  auto listener = f.handler.add_event_handler("a", recording(a));
  for (int i = 0; i < 5; ++i) f.apply(DeltaType::kUpdated, make_pod("ns", "p", std::to_string(i)));
  CHECK(a.empty());
  CHECK(listener->pending() == 5);
  CHECK(listener->max_pending() == 5);
  f.start();
  f.deliver();
  CHECK(a.size() == 5);
  CHECK(listener->pending() == 0);
}

TEST_CASE("an update that keeps the resourceVersion goes only to handlers due a resync") {
  Fixture f;
  std::vector<std::string> resyncing, plain;
  f.handler.add_event_handler("resyncing", recording(resyncing), 10s);
  f.handler.add_event_handler("plain", recording(plain));
  f.start();
  f.apply(DeltaType::kAdded, make_pod("ns", "p", "1"));

  CHECK_FALSE(f.processor.should_resync());
  CHECK(f.processor.resync_check_period() == Clock::duration(10s));
  f.now += 10s;
  CHECK(f.processor.should_resync());
  f.apply(DeltaType::kSync, make_pod("ns", "p", "1"));      // resync: same RV
  f.apply(DeltaType::kReplaced, make_pod("ns", "p", "1"));  // relist, unchanged: same RV
  f.apply(DeltaType::kReplaced, make_pod("ns", "p", "2"));  // relist, changed: everyone
  f.deliver();
  CHECK(resyncing ==
        std::vector<std::string>{"add p", "update p 1->1", "update p 1->1", "update p 1->2"});
  CHECK(plain == std::vector<std::string>{"add p", "update p 1->2"});

  // Not due again until another period has passed.
  f.now += 5s;
  CHECK_FALSE(f.processor.should_resync());
  f.apply(DeltaType::kSync, make_pod("ns", "p", "2"));
  f.deliver();
  CHECK(resyncing.size() == 4);
}

TEST_CASE("resync periods: at least a second; the check period follows every handler added") {
  Fixture f;
  std::vector<std::string> a, b, c;
  const auto idle = f.processor.resync_schedule();
  CHECK_FALSE(idle.period);
  f.handler.add_event_handler("hourly", recording(a), std::chrono::hours(1));
  const auto hourly = f.processor.resync_schedule();
  CHECK(hourly.period == Clock::duration(std::chrono::hours(1)));
  CHECK(hourly.version != idle.version);
  f.start();
  // Added after start with a shorter period: the check shrinks to it (client-go would raise the
  // handler's period to the hour); a period under the minimum is raised to one second.
  f.handler.add_event_handler("eager", recording(b), std::chrono::milliseconds(10));
  const auto eager = f.processor.resync_schedule();
  CHECK(eager.period == Clock::duration(SharedProcessor<TestPod>::kMinimumResyncPeriod));
  CHECK(eager.version != hourly.version);
  auto never = f.handler.add_event_handler("never", recording(c));
  CHECK(f.processor.resync_schedule().period == eager.period);

  f.apply(DeltaType::kAdded, make_pod("ns", "p", "1"));
  f.now += 1s;
  CHECK(f.processor.should_resync());
  f.apply(DeltaType::kSync, make_pod("ns", "p", "1"));
  f.deliver();
  CHECK(b == std::vector<std::string>{"add p", "update p 1->1"});
  CHECK(a == std::vector<std::string>{"add p"});
  CHECK(c == std::vector<std::string>{"add p"});
  CHECK(f.processor.remove_listener(never));
  CHECK(f.processor.resync_schedule().version != eager.version);
}

TEST_CASE("a bounded handler's buffer has room below its bound, and again once delivered") {
  Fixture f;
  std::vector<std::string> seen;
  auto bounded = f.processor.add_listener("bounded", recording(seen), {}, {.max_pending = 2});
  CHECK(f.processor.has_bounded_listeners());
  bool room = false;
  auto note_room = [&room](const std::exception_ptr&) { room = true; };
  f.apply(DeltaType::kAdded, make_pod("ns", "a", "1"));
  asio::co_spawn(f.io, f.processor.wait_for_room(), note_room);
  poll(f.io);
  CHECK(room);  // one pending, bound two
  f.apply(DeltaType::kAdded, make_pod("ns", "b", "1"));
  CHECK(bounded->pending() == 2);
  room = false;
  asio::co_spawn(f.io, f.processor.wait_for_room(), note_room);
  poll(f.io);
  CHECK_FALSE(room);  // full: the consumer waits here
  f.start();
  f.deliver();
  CHECK(room);
  CHECK(seen.size() == 2);
  CHECK(bounded->delivered() == 2);
}

TEST_CASE("a handler has synced once the informer has and it has heard the initial list") {
  Fixture f;
  std::vector<std::string> a;
  auto listener = f.handler.add_event_handler("a", recording(a));
  f.apply(DeltaType::kReplaced, make_pod("ns", "p1", "1"), true);
  f.apply(DeltaType::kReplaced, make_pod("ns", "p2", "1"), true);
  f.upstream_synced = true;
  CHECK_FALSE(listener->has_synced());  // two initial adds not yet delivered
  f.start();
  f.deliver();
  CHECK(listener->has_synced());
  f.upstream_synced = false;
  CHECK_FALSE(listener->has_synced());
}

TEST_CASE("a handler added late first receives the cache as initial adds") {
  Fixture f;
  f.upstream_synced = true;
  f.start();
  f.apply(DeltaType::kAdded, make_pod("ns", "p1", "1"));
  f.apply(DeltaType::kAdded, make_pod("ns", "p2", "1"));
  std::vector<std::string> late;
  auto listener = f.handler.add_event_handler("late", recording(late));
  CHECK_FALSE(listener->has_synced());
  f.apply(DeltaType::kUpdated, make_pod("ns", "p1", "2"));
  f.deliver();
  REQUIRE(late.size() == 3);
  std::vector<std::string> first(late.begin(), late.begin() + 2);
  std::sort(first.begin(), first.end());
  CHECK(first == std::vector<std::string>{"add p1 initial", "add p2 initial"});
  CHECK(late[2] == "update p1 1->2");
  CHECK(listener->has_synced());
}

TEST_CASE("a throwing handler is logged and counted, and delivery goes on") {
  Fixture f;
  std::vector<std::string> log;
  auto handler = recording(log);
  handler.on_add = [](const PodPtr&, bool) { throw std::runtime_error("boom"); };
  auto listener = f.handler.add_event_handler("flaky", handler);
  f.start();
  f.apply(DeltaType::kAdded, make_pod("ns", "p", "1"));
  f.apply(DeltaType::kUpdated, make_pod("ns", "p", "2"));
  f.deliver();
  CHECK(listener->handler_failures() == 1);
  CHECK(log == std::vector<std::string>{"update p 1->2"});
}

TEST_CASE("a removed handler stops hearing and its backlog is counted as undelivered") {
  Fixture f;
  std::vector<std::string> a, b;
  auto la = f.handler.add_event_handler("a", recording(a));
  f.handler.add_event_handler("b", recording(b));
  f.apply(DeltaType::kAdded, make_pod("ns", "p", "1"));
  CHECK(f.processor.remove_listener(la));
  CHECK_FALSE(f.processor.remove_listener(la));
  CHECK(la->undelivered() == 1);
  f.start();
  f.apply(DeltaType::kUpdated, make_pod("ns", "p", "2"));
  f.deliver();
  CHECK(a.empty());
  CHECK(b.size() == 2);
  CHECK(f.processor.listeners().size() == 1);
}

TEST_CASE("DeltaFIFO pop feeding HandleDeltas fills the cache and notifies") {
  Fixture f;
  std::vector<std::string> a;
  f.handler.add_event_handler("a", recording(a));
  DeltaFIFO<TestPod> fifo({.known_objects = &f.cache});
  run_coro(f.io, fifo.replace({make_pod("ns", "p1", "1"), make_pod("ns", "p2", "1")}, "1"));
  auto process = [&](Deltas<TestPod>&& deltas, bool initial) {
    f.handler.handle_deltas(std::move(deltas), initial);
  };
  while (!fifo.has_synced()) run_coro(f.io, fifo.pop(process));
  CHECK(f.cache.size() == 2);
  run_coro(f.io, fifo.replace({make_pod("ns", "p2", "2")}, "2"));  // p1 vanished meanwhile
  while (fifo.size() > 0) run_coro(f.io, fifo.pop(process));
  f.start();
  f.deliver();
  CHECK(a == std::vector<std::string>{"add p1 initial", "add p2 initial", "update p2 1->2",
                                      "delete ns/p1"});
  CHECK(f.cache.list_keys() == std::vector<std::string>{"ns/p2"});
}

TEST_CASE("a stuck handler stalls neither the other handlers nor the producer") {
  asio::thread_pool pool(2);
  Indexer<TestPod> cache;
  SharedProcessor<TestPod> processor([] { return true; });
  DeltaHandler<TestPod> handler(cache, processor);
  std::promise<void> fast_done;
  std::promise<void> release;
  auto release_future = release.get_future().share();
  int fast_seen = 0;  // touched only by the fast handler's loop
  constexpr int kEvents = 200;
  handler.add_event_handler("stuck",
                            {.on_add = [&](const PodPtr&, bool) { release_future.wait(); }});
  handler.add_event_handler("fast", {.on_add = [&](const PodPtr&, bool) {
                              if (++fast_seen == kEvents) fast_done.set_value();
                            }});
  asio::co_spawn(pool, processor.run(), asio::detached);
  for (int i = 0; i < kEvents; ++i) {  // the producer never waits on a handler
    Deltas<TestPod> deltas{{DeltaType::kAdded, make_pod("ns", "p" + std::to_string(i), "1")}};
    handler.handle_deltas(std::move(deltas), false);
  }
  // A regression would hang here; the guard turns that into a failure instead.
  const bool fast_finished = fast_done.get_future().wait_for(60s) == std::future_status::ready;
  CHECK(fast_finished);
  release.set_value();
  processor.stop();
  pool.join();
}
