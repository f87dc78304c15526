// async::WaiterList: a parked waiter keeps its io_context running, is completed by a post to its
// own executor (never inline) with its results, is found again by id, and its owner's
// cancellation hook is gone once it has been completed.
#include <doctest/doctest.h>

#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "async/waiter_list.hpp"

namespace asio = boost::asio;
using boost::system::error_code;
using Waiters = rg::async::WaiterList<std::string>;

namespace {

// A coroutine that parks in `waiters` under `id` and records what it was completed with.
struct Outcome {
  bool resumed = false;
  error_code ec;
  std::string result;
};

asio::awaitable<void> park(Waiters& waiters, std::uint64_t id, Outcome& outcome) {
  auto initiate = [&waiters, id](auto handler) {
    waiters.push(id, Waiters::make(std::move(handler)));
  };
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  std::string result =
      co_await asio::async_initiate<decltype(token), void(error_code, std::string)>(initiate,
                                                                                    token);
  outcome = {true, ec, result};
}

void rethrow(const std::exception_ptr& e) {
  if (e) std::rethrow_exception(e);
}

}  // namespace

TEST_CASE(
    "a parked waiter keeps its io_context running and is resumed by a post, with its result") {
  asio::io_context io;
  Waiters waiters;
  Outcome outcome;
  asio::co_spawn(io, park(waiters, 1, outcome), rethrow);
  io.poll();
  REQUIRE(waiters.size() == 1);
  CHECK_FALSE(io.stopped());  // outstanding work: run() would wait for the waiter

  waiters.pop_front().complete({}, "key-a");
  CHECK(waiters.empty());
  CHECK_FALSE(outcome.resumed);  // posted, not run inline
  io.run();
  CHECK(outcome.resumed);
  CHECK_FALSE(outcome.ec);
  CHECK(outcome.result == "key-a");
}

TEST_CASE("waiters are taken first in, first out, or by id; an unknown id finds nothing") {
  asio::io_context io;
  Waiters waiters;
  Outcome first, second, third;
  asio::co_spawn(io, park(waiters, 1, first), rethrow);
  asio::co_spawn(io, park(waiters, 2, second), rethrow);
  asio::co_spawn(io, park(waiters, 3, third), rethrow);
  io.poll();
  REQUIRE(waiters.size() == 3);

  CHECK_FALSE(waiters.remove(7).has_value());
  std::optional<Waiters::Completion> middle = waiters.remove(2);
  REQUIRE(middle.has_value());
  std::move(*middle).complete(asio::error::operation_aborted, "");
  waiters.pop_front().complete({}, "to-first");
  for (auto& rest : waiters.take_all()) std::move(rest).complete({}, "to-the-rest");
  CHECK(waiters.empty());
  io.run();
  CHECK(first.result == "to-first");
  CHECK(second.ec == asio::error::operation_aborted);
  CHECK(third.result == "to-the-rest");
}

TEST_CASE("complete_for keeps the results' owner alive until they are delivered") {
  asio::io_context io;
  Waiters waiters;
  Outcome outcome;
  asio::co_spawn(io, park(waiters, 1, outcome), rethrow);
  io.poll();
  auto owner = std::make_shared<int>(42);
  std::weak_ptr<int> watched = owner;
  waiters.pop_front().complete_for(std::move(owner), {}, "owned");
  CHECK_FALSE(watched.expired());  // held by the posted delivery
  io.run();
  CHECK(outcome.result == "owned");
  CHECK(watched.expired());
}

TEST_CASE("a completed waiter's cancellation hook is cleared before its handler runs") {
  // A plain callback (use_awaitable clears its slot itself on resuming; other tokens do not).
  asio::io_context io;
  Waiters waiters;
  asio::cancellation_signal signal;
  int hook_calls = 0;
  std::string delivered;
  auto waiter = Waiters::make(asio::bind_executor(
      io, asio::bind_cancellation_slot(signal.slot(), [&](error_code, std::string result) {
        delivered = std::move(result);
      })));
  waiter.cancellation_slot().assign([&](asio::cancellation_type) { ++hook_calls; });
  waiters.push(1, std::move(waiter));
  waiters.pop_front().complete({}, "done");
  io.run();
  REQUIRE(delivered == "done");
  signal.emit(asio::cancellation_type::terminal);  // the wait is over: nothing to cancel
  CHECK(hook_calls == 0);
}
