// Tests of workqueue/queue.hpp: dedup, the processing rule, get/done, shutdown, drain,
// cancellation of a waiting get().
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
using rg::workqueue::test::Outcome;
using rg::workqueue::test::run;
using rg::workqueue::test::spawn;
using StringQueue = Queue<std::string>;

namespace {

asio::awaitable<std::optional<std::string>> get_one(std::shared_ptr<StringQueue> q) {
  co_return co_await q->get();
}

// Takes keys until the queue says it is shut down; records them in order.
asio::awaitable<void> drain_all(std::shared_ptr<StringQueue> q, std::vector<std::string>& seen) {
  while (auto key = co_await q->get()) {
    seen.push_back(*key);
    q->done(*key);
  }
}

}  // namespace

TEST_CASE("a key already waiting is queued once") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  q->add("b");
  q->add("a");
  CHECK(q->len() == 2);
  CHECK(run(io, get_one(q)) == "a");
  CHECK(run(io, get_one(q)) == "b");
  CHECK(q->len() == 0);
}

TEST_CASE("a key re-added while processing is queued again only after done") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  REQUIRE(run(io, get_one(q)) == "a");
  q->add("a");
  CHECK(q->len() == 0);  // not handed to a second worker while the first has it
  q->add("a");           // still one pending re-run
  CHECK(q->len() == 0);
  q->done("a");
  CHECK(q->len() == 1);
  REQUIRE(run(io, get_one(q)) == "a");
  q->done("a");
  CHECK(q->len() == 0);
}

TEST_CASE("done of a key that is not being processed is ignored") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->done("never-added");
  q->add("a");
  q->done("a");  // waiting, not processing: must not queue it twice
  CHECK(q->len() == 1);
  REQUIRE(run(io, get_one(q)) == "a");
  q->done("a");
  q->done("a");
  CHECK(q->len() == 0);
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
  Outcome<std::optional<std::string>> out;
  spawn(io, get_one(q), out);
  io.poll();
  CHECK_FALSE(out.finished);
  CHECK_FALSE(io.stopped());  // the waiting get() counts as outstanding work
  q->add("k");
  io.run();
  REQUIRE(out.finished);
  CHECK(out.value == std::optional<std::string>("k"));
  CHECK(q->len() == 0);
}

TEST_CASE("shut_down wakes every waiting worker, and adds are then ignored") {
  asio::io_context io;
  auto q = StringQueue::create();
  std::vector<Outcome<std::optional<std::string>>> outs(5);
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
    CHECK_FALSE(out.value->has_value());
  }
  q->add("late");
  CHECK(q->len() == 0);
  CHECK(run(io, get_one(q)) == std::nullopt);
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
  REQUIRE(run(io, get_one(q)) == "a");
  q->add("a");
  q->shut_down();
  q->done("a");
  std::vector<std::string> seen;
  run(io, drain_all(q, seen));
  CHECK(seen == std::vector<std::string>{"a"});
}

TEST_CASE("shut_down_with_drain waits until every handed-out key is done") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  q->add("b");
  REQUIRE(run(io, get_one(q)) == "a");
  REQUIRE(run(io, get_one(q)) == "b");

  Outcome<void> drained;
  spawn(io, q->shut_down_with_drain(), drained);
  io.restart();
  io.poll();
  CHECK_FALSE(drained.finished);
  CHECK(q->shutting_down());
  q->add("c");  // ignored: shutting down
  q->done("a");
  io.poll();
  CHECK_FALSE(drained.finished);
  q->done("b");
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
  REQUIRE(run(io, get_one(q)) == "a");
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
      asio::bind_cancellation_slot(
          signal.slot(), [&](const std::exception_ptr& e, const std::optional<std::string>&) {
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
  CHECK(run(io, get_one(q)) == "k");
}

TEST_CASE("cancelling a shut_down_with_drain wait leaves the queue shut down") {
  asio::io_context io;
  auto q = StringQueue::create();
  q->add("a");
  REQUIRE(run(io, get_one(q)) == "a");
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
  q->done("a");
}

TEST_CASE("a worker on another io_context thread is woken by an add from this thread") {
  asio::io_context worker_io;
  auto q = StringQueue::create();
  Outcome<std::optional<std::string>> out;
  spawn(worker_io, get_one(q), out);
  std::thread worker([&] { worker_io.run(); });
  // The worker may or may not be waiting yet; either way it must get the key exactly once.
  q->add("k");
  worker.join();
  REQUIRE(out.finished);
  CHECK(out.value == std::optional<std::string>("k"));
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
  auto first = run(
      io, [](auto q) -> asio::awaitable<std::optional<Ref>> { co_return co_await q->get(); }(q));
  REQUIRE(first);
  CHECK(*first == Ref{1, 2});
}
