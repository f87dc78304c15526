// Tests of workqueue/queue.hpp: dedup, the processing rule, get and the Claim's done, shutdown,
// drain, cancellation of a waiting get().
#include "workqueue/queue.hpp"

#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/system_error.hpp>

#include "test/workqueue/run_coroutine.hpp"

namespace asio = boost::asio;
using rg::workqueue::Queue;
using rg::workqueue::test::get_one;
using rg::workqueue::test::key_of;
using rg::workqueue::test::Outcome;
using rg::workqueue::test::run;
using rg::workqueue::test::spawn;
using StringQueue = Queue<std::string>;
using Claim = StringQueue::Claim;

namespace {

// Takes keys until the queue says it is shut down; records them in order.
asio::awaitable<void> drain_all(std::shared_ptr<StringQueue> q, std::vector<std::string>& seen) {
  while (auto key = co_await q->get()) seen.push_back(*key);
}

}  // namespace

TEST_CASE("a key already waiting is queued once") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  q->add("b");
  q->add("a");
  CHECK(q->len() == 2);
  CHECK(key_of(run(io, get_one(q))) == "a");
  CHECK(key_of(run(io, get_one(q))) == "b");
  CHECK(q->len() == 0);
}

TEST_CASE("a key re-added while processing is queued again only after done") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  Claim first = run(io, get_one(q));
  REQUIRE(key_of(first) == "a");
  q->add("a");
  CHECK(q->len() == 0);  // not handed to a second worker while the first has it
  q->add("a");           // still one pending re-run
  CHECK(q->len() == 0);
  first.done();
  CHECK_FALSE(first);
  CHECK(q->len() == 1);
  Claim second = run(io, get_one(q));
  REQUIRE(key_of(second) == "a");
  second.done();
  CHECK(q->len() == 0);
}

TEST_CASE("a Claim gives its key back exactly once: done, move, destruction") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  Claim held = run(io, get_one(q));
  q->add("a");  // a re-run is pending until the key is given back
  Claim moved = std::move(held);
  CHECK_FALSE(held);  // NOLINT(bugprone-use-after-move): a moved-from Claim is empty
  held.done();        // holds nothing: gives nothing back
  CHECK(q->len() == 0);
  REQUIRE(key_of(moved) == "a");
  moved.done();
  CHECK(q->len() == 1);

  Claim rerun = run(io, get_one(q));
  REQUIRE(key_of(rerun) == "a");
  moved.done();  // already done: must not end the re-run's processing
  q->add("a");
  CHECK(q->len() == 0);  // still held by `rerun`

  { const Claim dropped = std::move(rerun); }  // destroyed: done
  CHECK(q->len() == 1);

  Claim target = run(io, get_one(q));
  q->add("b");
  Claim b = run(io, get_one(q));
  REQUIRE(key_of(b) == "b");
  q->add("b");
  target = std::move(b);  // gives "a" back (nothing pending) and takes over "b"
  REQUIRE(key_of(target) == "b");
  CHECK(q->len() == 0);
  target.done();
  CHECK(q->len() == 1);
  CHECK(key_of(run(io, get_one(q))) == "b");
}

TEST_CASE("a Claim's key stays put while other keys come and go") {
  asio::io_context io;
  auto q = StringQueue::create();
  const std::string long_key = "kube-system/a-deployment-name-longer-than-any-inline-buffer";
  q->add(long_key);
  const Claim held = run(io, get_one(q));
  const std::string* stored = &*held;
  std::vector<std::string> others;
  for (int i = 0; i < 1000; ++i) q->add("default/web-" + std::to_string(i));
  q->shut_down();
  run(io, drain_all(q, others));  // their state is dropped and recycled meanwhile
  CHECK(others.size() == 1000);
  CHECK(&*held == stored);
  CHECK(*held == long_key);
  CHECK(held->size() == long_key.size());
}

TEST_CASE("keys come out in the order they were first added") {
  asio::io_context io;
  auto q = StringQueue::create();
  for (const char* k : {"c", "a", "b", "a", "c"}) q->add(k);
  q->shut_down();
  std::vector<std::string> seen;
  run(io, drain_all(q, seen));
  CHECK(seen == std::vector<std::string>{"c", "a", "b"});
}

TEST_CASE("a waiting get() wakes when a key is added, and keeps the io_context running") {
  asio::io_context io;
  auto q = StringQueue::create();
  Outcome<Claim> out;
  spawn(io, get_one(q), out);
  io.poll();
  CHECK_FALSE(out.finished);
  CHECK_FALSE(io.stopped());  // the waiting get() counts as outstanding work
  q->add("k");
  io.run();
  REQUIRE(out.finished);
  REQUIRE(out.value);
  CHECK(key_of(*out.value) == "k");
  CHECK(q->len() == 0);
}

TEST_CASE("shut_down wakes every waiting worker, and adds are then ignored") {
  asio::io_context io;
  auto q = StringQueue::create();
  std::vector<Outcome<Claim>> outs(5);
  for (auto& out : outs) spawn(io, get_one(q), out);
  io.poll();
  for (auto& out : outs) CHECK_FALSE(out.finished);
  CHECK_FALSE(q->shutting_down());
  q->shut_down();
  CHECK(q->shutting_down());
  io.run();  // returns only because every waiter was completed
  for (auto& out : outs) {
    REQUIRE(out.finished);
    CHECK_FALSE(out.error);
    REQUIRE(out.value);
    CHECK_FALSE(*out.value);
  }
  q->add("late");
  CHECK(q->len() == 0);
  CHECK_FALSE(run(io, get_one(q)));
}

TEST_CASE("keys queued before shut_down are still handed out") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  q->add("b");
  q->shut_down();
  std::vector<std::string> seen;
  run(io, drain_all(q, seen));
  CHECK(seen == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a key re-added during processing is still processed after shut_down") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  Claim a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");
  q->add("a");
  q->shut_down();
  a.done();
  std::vector<std::string> seen;
  run(io, drain_all(q, seen));
  CHECK(seen == std::vector<std::string>{"a"});
}

TEST_CASE("shut_down_with_drain waits until every handed-out key is done") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  q->add("b");
  Claim a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");
  Claim b = run(io, get_one(q));
  REQUIRE(key_of(b) == "b");

  Outcome<void> drained;
  spawn(io, q->shut_down_with_drain(), drained);
  io.restart();
  io.poll();
  CHECK_FALSE(drained.finished);
  CHECK(q->shutting_down());
  q->add("c");  // ignored: shutting down
  a.done();
  io.poll();
  CHECK_FALSE(drained.finished);
  b.done();
  io.run();
  REQUIRE(drained.finished);
  CHECK_FALSE(drained.error);
  CHECK(q->len() == 0);
}

TEST_CASE("shut_down_with_drain with nothing in flight completes at once") {
  asio::io_context io;
  auto q = StringQueue::create();
  run(io, q->shut_down_with_drain());
  CHECK(q->shutting_down());
}

TEST_CASE("shut_down ends a shut_down_with_drain wait") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  const Claim a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");
  Outcome<void> drained;
  spawn(io, q->shut_down_with_drain(), drained);
  io.restart();
  io.poll();
  CHECK_FALSE(drained.finished);
  q->shut_down();
  io.run();
  CHECK(drained.finished);
}

TEST_CASE("cancelling a waiting get() throws operation_aborted and takes no key") {
  asio::io_context io;
  auto q = StringQueue::create();
  asio::cancellation_signal signal;
  bool aborted = false;
  asio::co_spawn(
      io, get_one(q),
      asio::bind_cancellation_slot(signal.slot(), [&](const std::exception_ptr& e, const Claim&) {
        try {
          if (e) std::rethrow_exception(e);
        } catch (const boost::system::system_error& err) {
          aborted = err.code() == asio::error::operation_aborted;
        }
      }));
  io.poll();
  signal.emit(asio::cancellation_type::terminal);
  io.run();
  CHECK(aborted);
  q->add("k");
  CHECK(q->len() == 1);  // nobody took it
  CHECK(key_of(run(io, get_one(q))) == "k");
}

TEST_CASE("cancelling a shut_down_with_drain wait leaves the queue shut down") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  Claim a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");
  asio::cancellation_signal signal;
  bool aborted = false;
  asio::co_spawn(io, q->shut_down_with_drain(),
                 asio::bind_cancellation_slot(signal.slot(), [&](const std::exception_ptr& e) {
                   try {
                     if (e) std::rethrow_exception(e);
                   } catch (const boost::system::system_error& err) {
                     aborted = err.code() == asio::error::operation_aborted;
                   }
                 }));
  io.restart();
  io.poll();
  signal.emit(asio::cancellation_type::terminal);
  io.run();
  CHECK(aborted);
  CHECK(q->shutting_down());
  a.done();
}

TEST_CASE("a worker on another io_context thread is woken by an add from this thread") {
  asio::io_context worker_io;
  auto q = StringQueue::create();
  Outcome<Claim> out;
  spawn(worker_io, get_one(q), out);
  std::thread worker([&] { worker_io.run(); });
  // The worker may or may not be waiting yet; either way it must get the key exactly once.
  q->add("k");
  worker.join();
  REQUIRE(out.finished);
  REQUIRE(out.value);
  CHECK(key_of(*out.value) == "k");
  CHECK(q->len() == 0);
}

TEST_CASE("keys of a user-defined type with its own hash") {
  struct Ref {
    int ns;
    int name;
    bool operator==(const Ref&) const = default;
  };
  struct RefHash {
    std::size_t operator()(const Ref& r) const { return std::hash<int>()(r.ns * 1000 + r.name); }
  };
  asio::io_context io;
  auto q = Queue<Ref, RefHash>::create();
  q->add(Ref{1, 2});
  q->add(Ref{1, 2});
  q->add(Ref{2, 1});
  CHECK(q->len() == 2);
  const auto first = run(io, get_one(q));
  REQUIRE(first);
  CHECK(*first == Ref{1, 2});
  CHECK(first->name == 2);
}
