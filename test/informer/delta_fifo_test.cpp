// DeltaFIFO: client-go's queue semantics (per-key delta lists, delete dedup, Replace
// tombstones, Resync, HasSynced), plus the bound: back-pressure on producers, close, cancel.
#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/system/system_error.hpp>

#include <string>
#include <vector>

#include "informer/delta_fifo.hpp"
#include "informer/indexer.hpp"
#include "test/informer/run_coro.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;
namespace asio = boost::asio;

namespace {

struct Popped {
  Deltas<TestPod> deltas;
  bool is_in_initial_list = false;
  bool ok = false;
};

Popped pop_one(asio::io_context& io, DeltaFIFO<TestPod>& fifo) {
  Popped out;
  out.ok = run_coro(io, fifo.pop([&](Deltas<TestPod>&& d, bool initial) {
    out.deltas = std::move(d);
    out.is_in_initial_list = initial;
  }));
  return out;
}

std::vector<DeltaType> types(const Deltas<TestPod>& deltas) {
  std::vector<DeltaType> out;
  for (const auto& d : deltas) out.push_back(d.type);
  return out;
}

std::string_view rv(const Delta<TestPod>& delta) {
  return object_of<TestPod>(delta.object)->metadata.resource_version;
}

}  // namespace

TEST_CASE("a key changed three times is popped once, with every delta oldest first") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  CHECK(run_coro(io, fifo.add(make_pod("ns", "a", "1"))));
  CHECK(run_coro(io, fifo.add(make_pod("ns", "b", "1"))));
  CHECK(run_coro(io, fifo.update(make_pod("ns", "a", "2"))));
  CHECK(run_coro(io, fifo.update(make_pod("ns", "a", "3"))));
  CHECK(fifo.size() == 2);
  CHECK(fifo.delta_count() == 4);
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/a", "ns/b"});

  auto first = pop_one(io, fifo);
  REQUIRE(first.ok);
  CHECK(types(first.deltas) ==
        std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated, DeltaType::kUpdated});
  CHECK(rv(first.deltas.back()) == "3");
  auto second = pop_one(io, fifo);
  CHECK(meta_namespace_key(*object_of<TestPod>(second.deltas.front().object)) == "ns/b");
  CHECK(fifo.size() == 0);
  CHECK(fifo.delta_count() == 0);
}

TEST_CASE("a popped key's deltas block serves later keys without keeping the popped objects") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  auto first = make_pod("ns", "a", "1");
  CHECK(run_coro(io, fifo.add(first)));
  // The consumer reads the deltas in place, as the informer's does (the FIFO keeps the block).
  CHECK(run_coro(io, fifo.pop([](Deltas<TestPod>&&, bool) {})));
  CHECK(first.use_count() == 1);  // nothing in the FIFO holds the popped object any more

  // A new key takes the spare block; the same key again joins it.
  CHECK(run_coro(io, fifo.add(make_pod("ns", "b", "1"))));
  CHECK(run_coro(io, fifo.update(make_pod("ns", "b", "2"))));
  CHECK(run_coro(io, fifo.add(make_pod("ns", "c", "1"))));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/b", "ns/c"});
  CHECK(fifo.delta_count() == 3);
  auto b = pop_one(io, fifo);
  CHECK(types(b.deltas) == std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated});
  CHECK(rv(b.deltas.back()) == "2");
  auto c = pop_one(io, fifo);
  CHECK(meta_namespace_key(*object_of<TestPod>(c.deltas.front().object)) == "ns/c");
  CHECK(c.deltas.size() == 1);
  CHECK(fifo.size() == 0);
}

TEST_CASE("a delete of a key neither queued nor known is ignored") {
  asio::io_context io;
  Indexer<TestPod> known;
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  CHECK(run_coro(io, fifo.remove(make_pod("ns", "ghost", "1"))));
  CHECK(fifo.size() == 0);

  known.add(make_pod("ns", "cached", "1"));
  CHECK(run_coro(io, fifo.remove(make_pod("ns", "cached", "2"))));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/cached"});
}

TEST_CASE("two deletes in a row collapse, keeping the one that is not a tombstone") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  run_coro(io, fifo.add(make_pod("ns", "a", "1")));
  run_coro(io, fifo.remove(make_pod("ns", "a", "2")));
  run_coro(io, fifo.remove(make_pod("ns", "a", "3")));
  auto deltas = *fifo.get_by_key("ns/a");
  REQUIRE(deltas.size() == 2);
  CHECK(rv(deltas[1]) == "3");  // the newer real delete wins
  CHECK(fifo.delta_count() == 2);

  // A relist that no longer has "a" adds a tombstone delete; it collapses into the real one.
  run_coro(io, fifo.replace({}, "10"));
  deltas = *fifo.get_by_key("ns/a");
  REQUIRE(deltas.size() == 2);
  CHECK_FALSE(is_tombstone<TestPod>(deltas[1].object));
  CHECK(rv(deltas[1]) == "3");
}

TEST_CASE("replace queues Replaced deltas and tombstones for vanished keys") {
  asio::io_context io;
  Indexer<TestPod> known;
  known.add(make_pod("ns", "cached-gone", "4"));
  known.add(make_pod("ns", "cached-kept", "4"));
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  run_coro(io, fifo.add(make_pod("ns", "queued-gone", "5")));

  run_coro(io, fifo.replace({make_pod("ns", "cached-kept", "6"), make_pod("ns", "new", "6")}, "6"));

  CHECK(types(*fifo.get_by_key("ns/cached-kept")) == std::vector<DeltaType>{DeltaType::kReplaced});
  CHECK(types(*fifo.get_by_key("ns/new")) == std::vector<DeltaType>{DeltaType::kReplaced});

  auto queued = *fifo.get_by_key("ns/queued-gone");
  REQUIRE(types(queued) == std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kDeleted});
  const auto& tombstone = std::get<DeletedFinalStateUnknown<TestPod>>(queued[1].object);
  CHECK(tombstone.key == "ns/queued-gone");
  CHECK(tombstone.object->metadata.resource_version == "5");  // newest queued state

  auto cached = *fifo.get_by_key("ns/cached-gone");
  REQUIRE(types(cached) == std::vector<DeltaType>{DeltaType::kDeleted});
  const auto& cached_tombstone = std::get<DeletedFinalStateUnknown<TestPod>>(cached[0].object);
  CHECK(cached_tombstone.object->metadata.resource_version == "4");  // from the cache
  CHECK(key_of<TestPod>(cached[0].object) == "ns/cached-gone");
}

TEST_CASE("replace tells size_hint the list's distinct keys before any is popped") {
  asio::io_context io;
  Indexer<TestPod> known;
  known.add(make_pod("ns", "cached-gone", "4"));
  std::vector<std::size_t> hints;
  const auto hint = [&](std::size_t keys) { hints.push_back(keys); };
  DeltaFIFO<TestPod> fifo({.known_objects = &known, .size_hint = hint});
  run_coro(io, fifo.add(make_pod("ns", "queued", "5")));
  CHECK(hints.empty());  // only replace() hints

  // Three items, two distinct keys (a list may name a key twice); the vanished cached key and
  // the queued one it lacks get tombstones, which the cache will not hold: not counted.
  run_coro(
      io, fifo.replace(
              {make_pod("ns", "a", "6"), make_pod("ns", "b", "6"), make_pod("ns", "a", "7")}, "7"));
  CHECK(hints == std::vector<std::size_t>{2});
  CHECK(fifo.size() == 4);  // a, b, and the tombstones of queued and cached-gone

  DeltaFIFO<TestPod> initial({.size_hint = hint});
  run_coro(io, initial.replace({make_pod("ns", "x", "1"), make_pod("ns", "y", "1"),
                                make_pod("ns", "z", "1"), make_pod("ns", "x", "2")},
                               "2"));
  CHECK(hints == std::vector<std::size_t>{2, 3});
  CHECK(initial.size() == 3);
}

TEST_CASE("replace without Replaced emits Sync deltas (client-go's old behaviour)") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({.emit_delta_type_replaced = false});
  run_coro(io, fifo.replace({make_pod("ns", "a", "1")}, "1"));
  CHECK(types(*fifo.get_by_key("ns/a")) == std::vector<DeltaType>{DeltaType::kSync});
}

TEST_CASE("has_synced once the first replace's items have all been popped") {
  asio::io_context io;
  Indexer<TestPod> known;
  known.add(make_pod("ns", "stale", "1"));
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  CHECK_FALSE(fifo.has_synced());
  run_coro(io, fifo.replace({make_pod("ns", "a", "2"), make_pod("ns", "b", "2")}, "2"));
  CHECK_FALSE(fifo.has_synced());  // 2 items + 1 tombstone to go

  // A watch event arriving meanwhile does not count towards the initial population.
  run_coro(io, fifo.add(make_pod("ns", "c", "3")));

  CHECK(pop_one(io, fifo).is_in_initial_list);
  CHECK(pop_one(io, fifo).is_in_initial_list);
  CHECK_FALSE(fifo.has_synced());
  CHECK(pop_one(io, fifo).is_in_initial_list);
  CHECK(fifo.has_synced());
  CHECK_FALSE(pop_one(io, fifo).is_in_initial_list);

  // Only the first replace sets the initial population.
  run_coro(io, fifo.replace({make_pod("ns", "a", "9")}, "9"));
  CHECK(fifo.has_synced());
}

TEST_CASE("a first list that names a key twice is synced once each key has been popped") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  run_coro(
      io, fifo.replace(
              {make_pod("ns", "a", "1"), make_pod("ns", "b", "1"), make_pod("ns", "a", "2")}, "2"));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/a", "ns/b"});
  const Popped a = pop_one(io, fifo);
  CHECK(types(a.deltas) == std::vector<DeltaType>{DeltaType::kReplaced, DeltaType::kReplaced});
  CHECK(rv(a.deltas.back()) == "2");
  CHECK_FALSE(fifo.has_synced());
  CHECK(pop_one(io, fifo).is_in_initial_list);
  CHECK(fifo.has_synced());
}

// The first list is kept as it came (see delta_fifo.hpp); these pin that nothing of the queue's
// semantics changes with it.
TEST_CASE("the first list reads as queued keys until popped, in its order") {
  asio::io_context io;
  std::vector<std::size_t> hints;
  DeltaFIFO<TestPod> fifo({.size_hint = [&](std::size_t keys) { hints.push_back(keys); }});
  run_coro(io, fifo.replace({make_pod("ns", "a", "1"), make_pod("ns", "b", "1"),
                             make_pod("", "cluster-scoped", "1")},
                            "1"));
  CHECK(hints == std::vector<std::size_t>{3});
  CHECK(fifo.size() == 3);
  CHECK(fifo.delta_count() == 3);
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/a", "ns/b", "cluster-scoped"});
  REQUIRE(fifo.get_by_key("ns/b"));
  CHECK(types(*fifo.get_by_key("ns/b")) == std::vector<DeltaType>{DeltaType::kReplaced});
  CHECK_FALSE(fifo.get_by_key("ns/c"));

  const Popped a = pop_one(io, fifo);
  CHECK(a.is_in_initial_list);
  CHECK(types(a.deltas) == std::vector<DeltaType>{DeltaType::kReplaced});
  CHECK(key_of<TestPod>(a.deltas[0].object) == "ns/a");
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/b", "cluster-scoped"});
  CHECK(fifo.size() == 2);
  CHECK(key_of<TestPod>(pop_one(io, fifo).deltas[0].object) == "ns/b");
  CHECK_FALSE(fifo.has_synced());
  CHECK(key_of<TestPod>(pop_one(io, fifo).deltas[0].object) == "cluster-scoped");
  CHECK(fifo.has_synced());
  CHECK(fifo.size() == 0);
  CHECK(fifo.delta_count() == 0);
}

TEST_CASE("a change to a key of the first list before it is popped joins that key's deltas") {
  asio::io_context io;
  Indexer<TestPod> known;
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  run_coro(io, fifo.replace({make_pod("ns", "a", "1"), make_pod("ns", "b", "1"),
                             make_pod("ns", "c", "1"), make_pod("ns", "d", "1")},
                            "1"));
  known.add(object_of<TestPod>(pop_one(io, fifo).deltas[0].object));  // a, as the informer would

  // Watch events for keys still in the list, and one for a new key.
  run_coro(io, fifo.update(make_pod("ns", "c", "2")));
  run_coro(io, fifo.remove(make_pod("ns", "d", "3")));
  run_coro(io, fifo.add(make_pod("ns", "e", "4")));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/b", "ns/c", "ns/d", "ns/e"});

  CHECK(types(pop_one(io, fifo).deltas) == std::vector<DeltaType>{DeltaType::kReplaced});
  const Popped c = pop_one(io, fifo);
  CHECK(c.is_in_initial_list);
  CHECK(types(c.deltas) == std::vector<DeltaType>{DeltaType::kReplaced, DeltaType::kUpdated});
  CHECK(rv(c.deltas.back()) == "2");
  const Popped d = pop_one(io, fifo);
  CHECK(types(d.deltas) == std::vector<DeltaType>{DeltaType::kReplaced, DeltaType::kDeleted});
  CHECK(fifo.has_synced());  // the four listed keys are popped
  const Popped e = pop_one(io, fifo);
  CHECK_FALSE(e.is_in_initial_list);
  CHECK(types(e.deltas) == std::vector<DeltaType>{DeltaType::kAdded});
  CHECK(fifo.size() == 0);
}

TEST_CASE("a relist while the first list is popped tombstones the listed keys it lacks") {
  asio::io_context io;
  Indexer<TestPod> known;
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  run_coro(
      io, fifo.replace(
              {make_pod("ns", "a", "1"), make_pod("ns", "b", "1"), make_pod("ns", "c", "1")}, "1"));
  known.add(object_of<TestPod>(pop_one(io, fifo).deltas[0].object));  // a
  run_coro(io, fifo.replace({make_pod("ns", "a", "5"), make_pod("ns", "c", "5")}, "5"));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/b", "ns/c", "ns/a"});
  const Popped b = pop_one(io, fifo);
  CHECK(types(b.deltas) == std::vector<DeltaType>{DeltaType::kReplaced, DeltaType::kDeleted});
  CHECK(std::holds_alternative<DeletedFinalStateUnknown<TestPod>>(b.deltas.back().object));
  CHECK(types(pop_one(io, fifo).deltas) ==
        std::vector<DeltaType>{DeltaType::kReplaced, DeltaType::kReplaced});
  CHECK(fifo.has_synced());
  CHECK(types(pop_one(io, fifo).deltas) == std::vector<DeltaType>{DeltaType::kReplaced});
}

TEST_CASE("a first list with an object that cannot be keyed queues nothing") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  CHECK_THROWS_WITH_AS(run_coro(io, fifo.replace({make_pod("ns", "a", "1"), nullptr}, "1")),
                       doctest::Contains("null object"), std::invalid_argument);
  CHECK(fifo.size() == 0);
  CHECK_FALSE(fifo.has_synced());
  run_coro(io, fifo.replace({make_pod("ns", "a", "1")}, "1"));
  CHECK(fifo.size() == 1);
}

TEST_CASE("queued keys stay readable while other keys come and go") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  for (int i = 0; i < 100; ++i) {
    run_coro(io, fifo.add(make_pod("ns", "pod-with-a-long-name-" + std::to_string(i), "1")));
  }
  for (int i = 0; i < 50; ++i) CHECK(pop_one(io, fifo).ok);
  for (int i = 100; i < 200; ++i) {
    run_coro(io, fifo.add(make_pod("ns", "pod-with-a-long-name-" + std::to_string(i), "1")));
  }
  const std::vector<std::string> keys = fifo.list_keys();
  REQUIRE(keys.size() == 150);
  CHECK(keys.front() == "ns/pod-with-a-long-name-50");
  CHECK(keys.back() == "ns/pod-with-a-long-name-199");
  for (int i = 50; i < 200; ++i) {
    const Popped popped = pop_one(io, fifo);
    REQUIRE(popped.deltas.size() == 1);
    CHECK(key_of<TestPod>(popped.deltas[0].object) ==
          "ns/pod-with-a-long-name-" + std::to_string(i));
  }
}

TEST_CASE("once a large list has drained, keys queue and pop as before") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  std::vector<std::shared_ptr<const TestPod>> list;
  for (int i = 0; i < 5000; ++i) list.push_back(make_pod("ns", "p" + std::to_string(i), "1"));
  run_coro(io, fifo.replace(std::move(list), "1"));
  for (int i = 0; i < 5000; ++i) {
    const Popped popped = pop_one(io, fifo);  // the last pop frees the list's table
    REQUIRE(popped.deltas.size() == 1);
    CHECK(key_of<TestPod>(popped.deltas[0].object) == "ns/p" + std::to_string(i));
  }
  CHECK(fifo.has_synced());
  run_coro(io, fifo.add(make_pod("ns", "p7", "2")));
  run_coro(io, fifo.update(make_pod("ns", "p7", "3")));
  run_coro(io, fifo.add(make_pod("ns", "q", "3")));
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/p7", "ns/q"});
  CHECK(fifo.get_by_key("ns/p7")->size() == 2);
  CHECK(types(pop_one(io, fifo).deltas) ==
        std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated});
  CHECK(pop_one(io, fifo).ok);
  CHECK(fifo.size() == 0);
}

TEST_CASE("an add before any replace counts as populated") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  run_coro(io, fifo.add(make_pod("ns", "a", "1")));
  CHECK(fifo.has_synced());
}

TEST_CASE("resync queues Sync for cached keys with nothing queued") {
  asio::io_context io;
  Indexer<TestPod> known;
  known.add(make_pod("ns", "idle", "1"));
  known.add(make_pod("ns", "busy", "1"));
  DeltaFIFO<TestPod> fifo({.known_objects = &known});
  run_coro(io, fifo.update(make_pod("ns", "busy", "2")));
  CHECK(run_coro(io, fifo.resync()));
  CHECK(types(*fifo.get_by_key("ns/idle")) == std::vector<DeltaType>{DeltaType::kSync});
  CHECK(types(*fifo.get_by_key("ns/busy")) == std::vector<DeltaType>{DeltaType::kUpdated});

  DeltaFIFO<TestPod> unknown({});
  CHECK(run_coro(io, unknown.resync()));
  CHECK(unknown.size() == 0);
}

TEST_CASE("close: producers are refused, consumers drain and then stop") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  run_coro(io, fifo.add(make_pod("ns", "a", "1")));
  fifo.close();
  CHECK(fifo.is_closed());
  CHECK_FALSE(run_coro(io, fifo.add(make_pod("ns", "b", "1"))));
  CHECK(pop_one(io, fifo).ok);
  CHECK_FALSE(pop_one(io, fifo).ok);
}

TEST_CASE("a pop waiting on an empty queue wakes on add and on close") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  std::vector<std::string> seen;
  int finished = 0;
  auto consumer = [&]() -> asio::awaitable<void> {
    auto record = [&](Deltas<TestPod>&& d, bool) {
      seen.push_back(key_of<TestPod>(d.front().object));
    };
    while (co_await fifo.pop(record)) {
    }
    ++finished;
  };
  asio::co_spawn(io, consumer(), asio::detached);
  poll(io);
  CHECK(seen.empty());
  asio::co_spawn(io, fifo.add(make_pod("ns", "a", "1")), asio::detached);
  poll(io);
  CHECK(seen == std::vector<std::string>{"ns/a"});
  CHECK(finished == 0);
  fifo.close();
  poll(io);
  CHECK(finished == 1);
}

TEST_CASE("a full FIFO makes producers wait until the consumer makes room") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({.capacity = 2});
  int accepted = 0;
  auto producer = [&]() -> asio::awaitable<void> {
    for (int i = 0; i < 4; ++i) {
      PodPtr pod = make_pod("ns", "p" + std::to_string(i), "1");
      if (co_await fifo.add(std::move(pod))) ++accepted;
    }
  };
  asio::co_spawn(io, producer(), asio::detached);
  poll(io);
  CHECK(accepted == 2);  // the third add waits: nothing was dropped, nothing grew
  CHECK(fifo.delta_count() == 2);

  CHECK(pop_one(io, fifo).ok);  // frees one slot
  poll(io);                     // the producer goes on, and waits again
  CHECK(accepted == 3);
  CHECK(fifo.delta_count() == 2);
  CHECK(pop_one(io, fifo).ok);
  poll(io);
  CHECK(accepted == 4);
  CHECK(fifo.list_keys() == std::vector<std::string>{"ns/p2", "ns/p3"});
}

TEST_CASE("a replace waits for room, then queues its whole list at once") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({.capacity = 1});
  run_coro(io, fifo.add(make_pod("ns", "x", "1")));
  bool replaced = false;
  auto relist = [&]() -> asio::awaitable<void> {
    std::vector<PodPtr> list{make_pod("ns", "a", "2"), make_pod("ns", "b", "2"),
                             make_pod("ns", "c", "2")};
    replaced = co_await fifo.replace(std::move(list), "2");
  };
  asio::co_spawn(io, relist(), asio::detached);
  poll(io);
  CHECK_FALSE(replaced);
  pop_one(io, fifo);
  poll(io);
  CHECK(replaced);
  CHECK(fifo.size() == 3);
}

TEST_CASE("close releases a producer waiting for room") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({.capacity = 1});
  run_coro(io, fifo.add(make_pod("ns", "x", "1")));
  std::optional<bool> result;
  auto producer = [&]() -> asio::awaitable<void> {
    PodPtr pod = make_pod("ns", "y", "1");
    result = co_await fifo.add(std::move(pod));
  };
  asio::co_spawn(io, producer(), asio::detached);
  poll(io);
  CHECK_FALSE(result.has_value());
  fifo.close();
  poll(io);
  REQUIRE(result.has_value());
  CHECK_FALSE(*result);
}

TEST_CASE("cancelling a waiting pop ends it with operation_aborted") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  asio::cancellation_signal cancel;
  std::exception_ptr error;
  bool done = false;
  auto noop = [](Deltas<TestPod>&&, bool) {};
  asio::co_spawn(
      io, fifo.pop(noop),
      asio::bind_cancellation_slot(cancel.slot(), [&](const std::exception_ptr& e, bool) {
        error = e;
        done = true;
      }));
  poll(io);
  CHECK_FALSE(done);
  cancel.emit(asio::cancellation_type::terminal);
  io.run();  // returns: the cancelled waiter no longer holds work
  REQUIRE(done);
  REQUIRE(error);
  try {
    std::rethrow_exception(error);
  } catch (const boost::system::system_error& e) {
    CHECK(e.code() == asio::error::operation_aborted);
  }
  // The FIFO still works afterwards.
  run_coro(io, fifo.add(make_pod("ns", "a", "1")));
  CHECK(pop_one(io, fifo).ok);
}

TEST_CASE("an exception from process propagates and the key is consumed") {
  asio::io_context io;
  DeltaFIFO<TestPod> fifo({});
  run_coro(io, fifo.add(make_pod("ns", "a", "1")));
  auto fail = [](Deltas<TestPod>&&, bool) { throw std::runtime_error("handler broke"); };
  CHECK_THROWS_WITH(run_coro(io, fifo.pop(fail)), "handler broke");
  CHECK(fifo.size() == 0);
}

TEST_CASE("bad input is refused with a clear error") {
  asio::io_context io;
  CHECK_THROWS_WITH_AS(DeltaFIFO<TestPod>({.capacity = 0}), doctest::Contains("capacity"),
                       std::invalid_argument);
  DeltaFIFO<TestPod> fifo({});
  CHECK_THROWS_WITH_AS(run_coro(io, fifo.add(nullptr)), doctest::Contains("null object"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(run_coro(io, fifo.replace({make_pod("ns", "", "1")}, "1")),
                       doctest::Contains("metadata.name"), std::invalid_argument);
  CHECK(fifo.size() == 0);
}
