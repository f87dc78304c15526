// Condition: an awaitable condition variable. Coroutines wait until a condition guarded by their
// owner's mutex holds; the owner calls notify_all_locked() whenever it may have come true. Safe
// across threads: the waiters park in an async::WaiterList, so each is resumed on its own
// executor and keeps that executor's io_context running while parked. Cancellation (the awaiting
// coroutine's cancellation slot) unparks a waiter with operation_aborted.
//
//   std::mutex mutex;
//   async::Condition not_empty{mutex};
//   // consumer
//   auto take = [&] { if (queue.empty()) return false; item = pop(queue); return true; };
//   co_await not_empty.until(take);  // `take` runs with the mutex held
//   // producer
//   { std::lock_guard lock(mutex); queue.push(item); not_empty.notify_all_locked(); }
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

#include "async/waiter_list.hpp"

namespace rg::async {

class Condition {
 public:
  /// `mutex` is the owner's mutex; it guards the condition and the parked waiters.
  explicit Condition(std::mutex& mutex) : mutex_(&mutex) {}
  Condition(const Condition&) = delete;
  Condition& operator=(const Condition&) = delete;
  /// The owner must outlive every coroutine waiting here (wake them and let them finish).
  ~Condition() = default;

  /// Returns once `try_now()` -- called with the mutex held -- returns true (it does its work
  /// in that same critical section). Tried at once, then again after each notify_all_locked().
  /// Throws boost::system::system_error(operation_aborted) when cancelled while parked.
  template <class TryNow>
  boost::asio::awaitable<void> until(TryNow try_now) {
    {
      std::lock_guard lock(*mutex_);
      if (try_now()) co_return;
    }
    for (;;) {
      bool done = false;
      auto initiate = [this, &try_now, &done](auto handler) {
        auto waiter = Waiters::make(std::move(handler));
        std::lock_guard lock(*mutex_);
        done = try_now();
        if (done) {
          std::move(waiter).complete({});
        } else {
          park_locked(std::move(waiter));
        }
      };
      co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                           void(boost::system::error_code)>(
          initiate, boost::asio::use_awaitable);
      if (done) co_return;
    }
  }

  /// Wakes every parked waiter; each tries its condition again. Call with the mutex held.
  void notify_all_locked() {
    for (auto& waiter : waiters_.take_all()) std::move(waiter).complete({});
  }

  /// Number of parked waiters. Call with the mutex held.
  std::size_t size_locked() const { return waiters_.size(); }

 private:
  using Waiters = WaiterList<>;

  struct CancelHandler {
    Condition* condition;
    std::uint64_t id;
    void operator()(boost::asio::cancellation_type type) const {
      if (type != boost::asio::cancellation_type::none) condition->cancel(id);
    }
  };

  void park_locked(Waiters::Completion waiter) {
    const std::uint64_t id = ++last_id_;
    if (auto slot = waiter.cancellation_slot(); slot.is_connected()) {
      slot.emplace<CancelHandler>(CancelHandler{this, id});
    }
    waiters_.push(id, std::move(waiter));
  }

  void cancel(std::uint64_t id) {
    std::lock_guard lock(*mutex_);
    if (auto waiter = waiters_.remove(id)) {
      std::move(*waiter).complete(boost::asio::error::operation_aborted);
    }
  }

  std::mutex* mutex_;
  Waiters waiters_;
  std::uint64_t last_id_ = 0;
};

}  // namespace rg::async
