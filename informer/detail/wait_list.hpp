// WaitList: coroutines parked until a condition guarded by their owner's mutex holds (an
// awaitable condition variable). Safe across threads: waking posts each waiter's resumption to
// its own executor, and a parked waiter keeps that executor's work count up so its io_context
// does not return from run() under it. Cancellation (the awaiting coroutine's cancellation
// slot) unparks the waiter with operation_aborted.
#pragma once

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

namespace rg::informer::detail {

class WaitList {
 public:
  /// `mutex` is the owner's mutex; it guards the condition and this list.
  explicit WaitList(std::mutex& mutex) : mutex_(&mutex) {}
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  /// The owner must outlive every coroutine waiting here (close it and let them finish).
  ~WaitList() = default;

  /// Returns once `try_now()` -- called with the mutex held -- returns true (it does its work
  /// in that same critical section). Tried at once, then again after each notify_all().
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
        std::lock_guard lock(*mutex_);
        done = try_now();
        if (done) {
          WaiterFor<decltype(handler)>(std::move(handler)).complete({});
        } else {
          park(std::move(handler));
        }
      };
      co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                           void(boost::system::error_code)>(
          initiate, boost::asio::use_awaitable);
      if (done) co_return;
    }
  }

  /// Wakes every parked waiter; each re-checks its condition. Call with the mutex held.
  void notify_all_locked() { wake_locked(); }

  /// Number of parked waiters. Call with the mutex held.
  std::size_t size_locked() const { return waiters_.size(); }

 private:
  struct Waiter {
    virtual ~Waiter() = default;
    virtual void complete(boost::system::error_code ec) = 0;
    std::uint64_t id = 0;
  };

  template <class Handler>
  class WaiterFor final : public Waiter {
   public:
    explicit WaiterFor(Handler handler)
        : handler_(std::move(handler)),
          work_(boost::asio::prefer(boost::asio::get_associated_executor(handler_),
                                    boost::asio::execution::outstanding_work_t::tracked)) {}

    void complete(boost::system::error_code ec) override {
      auto resume = [handler = std::move(handler_), ec]() mutable {
        boost::asio::get_associated_cancellation_slot(handler).clear();
        std::move(handler)(ec);
      };
      boost::asio::post(work_, std::move(resume));
    }

   private:
    Handler handler_;
    decltype(boost::asio::prefer(boost::asio::get_associated_executor(std::declval<Handler&>()),
                                 boost::asio::execution::outstanding_work_t::tracked)) work_;
  };

  struct CancelHandler {
    WaitList* list;
    std::uint64_t id;
    void operator()(boost::asio::cancellation_type type) const {
      if (type != boost::asio::cancellation_type::none) list->cancel(id);
    }
  };

  template <class Handler>
  void park(Handler handler) {
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    auto waiter = std::make_unique<WaiterFor<Handler>>(std::move(handler));
    waiter->id = ++last_id_;
    if (slot.is_connected()) slot.template emplace<CancelHandler>(CancelHandler{this, waiter->id});
    waiters_.push_back(std::move(waiter));
  }

  void wake_locked() {
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (auto& waiter : waiters) waiter->complete({});
  }

  void cancel(std::uint64_t id) {
    std::lock_guard lock(*mutex_);
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if ((*it)->id == id) {
        (*it)->complete(boost::asio::error::operation_aborted);
        waiters_.erase(it);
        return;
      }
    }
  }

  std::mutex* mutex_;
  std::list<std::unique_ptr<Waiter>> waiters_;
  std::uint64_t last_id_ = 0;
};

}  // namespace rg::informer::detail
