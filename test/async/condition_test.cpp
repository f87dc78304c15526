// async::Condition: until() returns at once when its condition holds, else parks until a
// notify_all_locked() makes it hold; every parked waiter tries again on each notify; a waiter on
// another thread's io_context is resumed there; cancellation unparks it with operation_aborted.
#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/system_error.hpp>

#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "async/condition.hpp"

namespace asio = boost::asio;
using rg::async::Condition;

namespace {

// A queue of ints whose consumers wait on a Condition.
struct Queue {
  std::mutex mutex;
  Condition not_empty{mutex};
  std::deque<int> items;

  void push(int item) {
    std::lock_guard lock(mutex);
    items.push_back(item);
    not_empty.notify_all_locked();
  }

  asio::awaitable<int> pop() {
    int item = 0;
    auto take = [&] {
      if (items.empty()) return false;
      item = items.front();
      items.pop_front();
      return true;
    };
    co_await not_empty.until(take);
    co_return item;
  }

  std::size_t parked() {
    std::lock_guard lock(mutex);
    return not_empty.size_locked();
  }
};

}  // namespace

TEST_CASE("until returns at once when the condition holds, and parks until a notify otherwise") {
  asio::io_context io;
  Queue queue;
  queue.push(1);
  std::optional<int> first, second;
  asio::co_spawn(io, queue.pop(), [&](std::exception_ptr e, int item) {
    REQUIRE_FALSE(e);
    first = item;
  });
  io.poll();
  CHECK(first == 1);
  CHECK(queue.parked() == 0);
  CHECK(io.stopped());  // nothing left to wait for
  io.restart();

  asio::co_spawn(io, queue.pop(), [&](std::exception_ptr e, int item) {
    REQUIRE_FALSE(e);
    second = item;
  });
  io.poll();
  CHECK_FALSE(second.has_value());
  CHECK(queue.parked() == 1);
  CHECK_FALSE(io.stopped());  // the parked waiter is outstanding work
  queue.push(2);
  io.run();
  CHECK(second == 2);
}

TEST_CASE("every parked waiter tries again on a notify; those whose condition fails park again") {
  asio::io_context io;
  Queue queue;
  int got = 0;
  for (int i = 0; i < 3; ++i) {
    asio::co_spawn(io, queue.pop(), [&](std::exception_ptr e, int) {
      REQUIRE_FALSE(e);
      ++got;
    });
  }
  io.poll();
  REQUIRE(queue.parked() == 3);
  queue.push(7);  // one item: one waiter takes it, two park again
  io.poll();
  CHECK(got == 1);
  CHECK(queue.parked() == 2);
  queue.push(8);
  queue.push(9);
  io.run();
  CHECK(got == 3);
  CHECK(queue.parked() == 0);
}

TEST_CASE("a waiter is resumed on its own io_context's thread, not the notifier's") {
  asio::io_context io;
  Queue queue;
  std::thread::id resumed_on;
  asio::co_spawn(io, queue.pop(), [&](std::exception_ptr e, int) {
    REQUIRE_FALSE(e);
    resumed_on = std::this_thread::get_id();
  });
  io.poll();
  REQUIRE(queue.parked() == 1);
  std::thread runner([&] { io.run(); });  // returns once the waiter has been resumed
  const std::thread::id runner_id = runner.get_id();
  queue.push(5);  // from this thread
  runner.join();
  CHECK(resumed_on == runner_id);
}

TEST_CASE("cancellation unparks a waiter with operation_aborted and leaves the others parked") {
  asio::io_context io;
  Queue queue;
  asio::cancellation_signal signal;
  std::optional<boost::system::error_code> cancelled;
  std::optional<int> other;
  asio::co_spawn(io, queue.pop(),
                 asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, int) {
                   try {
                     if (e) std::rethrow_exception(e);
                   } catch (const boost::system::system_error& error) {
                     cancelled = error.code();
                   }
                 }));
  asio::co_spawn(io, queue.pop(), [&](std::exception_ptr e, int item) {
    REQUIRE_FALSE(e);
    other = item;
  });
  io.poll();
  REQUIRE(queue.parked() == 2);
  asio::post(io, [&] { signal.emit(asio::cancellation_type::terminal); });
  io.poll();
  CHECK(cancelled == asio::error::operation_aborted);
  CHECK(queue.parked() == 1);
  queue.push(3);
  io.run();
  CHECK(other == 3);
}
