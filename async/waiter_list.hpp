// WaiterList: coroutines suspended until their owner completes them, kept as type-erased Asio
// completion handlers that may carry results (the work queue's get() receives its key through
// one). A waiter keeps its executor's work count up while it waits (like any pending Asio
// operation), is completed by posting to its own executor (never inline from the thread that
// made it ready), and is found again by id, so its owner can cancel it through its coroutine's
// cancellation slot. Not synchronised: the owner guards it with its own lock.
// The one waiter list of the project: async::Condition, the work queue and the exec-credential
// flight all park their coroutines here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/system/error_code.hpp>

namespace rg::async {

template <class... Results>
class WaiterList {
 public:
  using Handler = boost::asio::any_completion_handler<void(boost::system::error_code, Results...)>;

  // A waiter taken off the list, ready to be completed (best once the owner's lock is released).
  class Completion {
   public:
    Completion(Handler handler, boost::asio::any_io_executor work)
        : handler_(std::move(handler)), work_(std::move(work)) {}

    // The slot to hook cancellation into. The type-erased handler has its own, which forwards the
    // original handler's slot (so hook in here, not in the original handler's).
    boost::asio::cancellation_slot cancellation_slot() const {
      return handler_.get_cancellation_slot();
    }

    void complete(boost::system::error_code ec, Results... results) && {
      std::move(*this).complete_for(nullptr, ec, std::move(results)...);
    }

    // As complete(), for results that point into `owner`: it is kept alive until they have been
    // delivered, or dropped unread (an executor destroyed with the handler still queued).
    void complete_for(std::shared_ptr<const void> owner, boost::system::error_code ec,
                      Results... results) && {
      auto executor = work_;
      boost::asio::post(executor, Delivery{std::move(owner), std::move(handler_), std::move(work_),
                                           ec, std::make_tuple(std::move(results)...)});
    }

   private:
    // The posted call. Members are destroyed in reverse order: the results before the handler
    // and before their owner.
    struct Delivery {
      std::shared_ptr<const void> owner;
      Handler handler;
      boost::asio::any_io_executor work;  // outstanding_work.tracked until the handler has run
      boost::system::error_code ec;
      std::tuple<Results...> results;

      void operator()() {
        // The owner's cancellation hook dies with the wait (use_awaitable clears the slot when
        // the coroutine resumes; a plain callback's slot would keep it).
        handler.get_cancellation_slot().clear();
        std::apply([&](auto&&... r) { std::move(handler)(ec, std::forward<decltype(r)>(r)...); },
                   std::move(results));
      }
    };

    Handler handler_;
    boost::asio::any_io_executor work_;  // outstanding_work.tracked until the handler has run
  };

  // Wraps a handler, to complete at once or to push().
  template <class CompletionHandler>
  static Completion make(CompletionHandler&& handler) {
    boost::asio::any_io_executor work =
        boost::asio::prefer(boost::asio::get_associated_executor(handler),
                            boost::asio::execution::outstanding_work_t::tracked);
    return Completion(Handler(std::forward<CompletionHandler>(handler)), std::move(work));
  }

  void push(std::uint64_t id, Completion waiter) {
    waiters_.push_back(Waiter{id, std::move(waiter)});
  }

  bool empty() const { return waiters_.empty(); }

  std::size_t size() const { return waiters_.size(); }

  Completion pop_front() {
    Completion c = std::move(waiters_.front().completion);
    waiters_.pop_front();
    return c;
  }

  std::optional<Completion> remove(std::uint64_t id) {
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (it->id == id) {
        Completion c = std::move(it->completion);
        waiters_.erase(it);
        return c;
      }
    }
    return std::nullopt;
  }

  std::vector<Completion> take_all() {
    std::vector<Completion> all;
    all.reserve(waiters_.size());
    for (auto& w : waiters_) all.push_back(std::move(w.completion));
    waiters_.clear();
    return all;
  }

 private:
  struct Waiter {
    std::uint64_t id;
    Completion completion;
  };
  std::list<Waiter> waiters_;
};

}  // namespace rg::async
