// ProcessorListener: one registered handler's private buffer and delivery loop (client-go's
// processorListener). add() never blocks -- the buffer grows as needed and is accounted
// (pending(), max_pending(), delivered(), handler_failures(): the informer_handler_* metrics) --
// so a slow handler stalls neither the other handlers nor the informer; run() delivers the
// notifications in order on the executor it is spawned on (the SharedProcessor gives each
// listener a strand of its own), yielding to other work every kTimeSlice so that on a
// single-threaded io_context a slow handler delays the others and the informer by at most one
// callback, not by a whole batch.
//
// Bounding the buffer is opt-in (Options::max_pending): the informer's consumer waits for room
// (wait_for_room) before it pops the next key, so a bounded handler that falls behind stalls the
// informer -- every other handler of it and, once the DeltaFIFO is full, the reflector -- instead
// of growing. The buffer may exceed the bound by the notifications of the one key popped last
// (and a handler added late is first given the whole cache, unbounded).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "async/condition.hpp"
#include "informer/event_handler.hpp"

namespace rg::informer {

namespace detail {
/// Logs a handler that threw (the informer keeps going; see ProcessorListener).
void log_handler_failure(std::string_view handler, std::string_view callback,
                         std::string_view what);
/// Logs notifications a stopped listener will never deliver.
void log_undelivered(std::string_view handler, std::size_t count);
}  // namespace detail

template <KubeObject T>
class ProcessorListener {
 public:
  /// How long run() delivers before it lets other coroutines of its io_context run.
  static constexpr std::chrono::milliseconds kTimeSlice{2};

  struct Options {
    /// Notifications pending at which the informer waits for this handler (see the header
    /// comment); 0: unbounded.
    std::size_t max_pending = 0;
  };

  /// `upstream_has_synced`: the informer's own has_synced (its initial list was processed).
  ProcessorListener(std::string name, ResourceEventHandlerFuncs<T> handler,
                    std::function<bool()> upstream_has_synced, Options options = {})
      : name_(std::move(name)),
        handler_(std::move(handler)),
        upstream_has_synced_(std::move(upstream_has_synced)),
        options_(options),
        ready_(mutex_),
        room_(mutex_) {}

  ProcessorListener(const ProcessorListener&) = delete;
  ProcessorListener& operator=(const ProcessorListener&) = delete;

  const std::string& name() const { return name_; }

  /// Buffers a notification; never blocks. Ignored (and counted as undelivered) once stopped.
  void add(Notification<T> notification) {
    std::lock_guard lock(mutex_);
    if (stopped_) {
      ++undelivered_;
      return;
    }
    if (const auto* add = std::get_if<AddNotification<T>>(&notification);
        add && add->is_in_initial_list) {
      ++initial_pending_;
    }
    pending_.push_back(std::move(notification));
    max_pending_ = std::max(max_pending_, pending_.size() + in_flight_);
    ready_.notify_all_locked();
  }

  /// Delivers notifications until stop(). A callback that throws is logged and counted
  /// (handler_failures()); delivery goes on with the next notification.
  boost::asio::awaitable<void> run() {
    using Clock = std::chrono::steady_clock;
    const auto executor = co_await boost::asio::this_coro::executor;
    auto slice_start = Clock::now();
    // Swapped with pending_: add() appends to one buffer while this loop delivers the other, and
    // both keep their capacity, so a steady stream of notifications allocates nothing.
    Buffer batch;
    for (;;) {
      bool stopping = false;
      auto take = [&] {
        if (stopped_) return stopping = true;
        if (pending_.empty()) return false;
        batch.swap(pending_);
        in_flight_ = batch.size();
        return true;
      };
      co_await ready_.until(take);
      if (stopping) co_return;
      // Resumed after `take`: stop() may have come in between (from another thread).
      if (is_stopped()) {
        discard(batch.size());
        co_return;
      }
      for (std::size_t i = 0; i < batch.size(); ++i) {
        deliver(batch[i]);
        bool go_on = count_delivered(batch[i]);
        const std::size_t left = batch.size() - i - 1;
        if (go_on && Clock::now() - slice_start >= kTimeSlice) {
          co_await boost::asio::post(executor, boost::asio::use_awaitable);
          slice_start = Clock::now();
          go_on = !is_stopped();
        }
        if (!go_on) {
          if (left != 0) discard(left);
          co_return;
        }
      }
      // The objects go now; an initial list's large buffer goes too.
      batch.clear();
      if (batch.capacity() > kKeptCapacity) batch = Buffer();
    }
  }

  /// Stops delivery after the callback in progress; what is still buffered is logged and
  /// discarded (the informer is shutting down or the handler was removed).
  void stop() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    if (!pending_.empty()) {
      undelivered_ += pending_.size();
      detail::log_undelivered(name_, pending_.size());
      pending_.clear();
    }
    ready_.notify_all_locked();
    room_.notify_all_locked();
  }

  bool is_stopped() const {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  /// The informer has synced and this handler has been given every object of the initial list
  /// (or, when added late, of the cache at the time it was added).
  bool has_synced() const {
    // Upstream first: once the informer has synced, every initial notification has been added
    // here (distribution happens as the FIFO pops, before it can report synced), so the count
    // below is final. In the other order the last initial add could arrive between the two.
    if (!upstream_has_synced_()) return false;
    std::lock_guard lock(mutex_);
    return initial_pending_ == 0;
  }

  /// Notifications buffered or being delivered.
  std::size_t pending() const {
    std::lock_guard lock(mutex_);
    return pending_.size() + in_flight_;
  }

  /// Returns once pending() is below Options::max_pending (at once when unbounded or stopped).
  boost::asio::awaitable<void> wait_for_room() {
    auto has_room = [this] {
      return options_.max_pending == 0 || stopped_ ||
             pending_.size() + in_flight_ < options_.max_pending;
    };
    co_await room_.until(has_room);
  }

  std::size_t max_pending_bound() const { return options_.max_pending; }

  /// Notifications handed to the handler so far (those that threw included).
  std::uint64_t delivered() const {
    std::lock_guard lock(mutex_);
    return delivered_;
  }

  /// The largest pending() seen (how far behind this handler has fallen).
  std::size_t max_pending() const {
    std::lock_guard lock(mutex_);
    return max_pending_;
  }

  /// Notifications dropped because the listener was stopped before delivering them.
  std::size_t undelivered() const {
    std::lock_guard lock(mutex_);
    return undelivered_;
  }

  std::size_t handler_failures() const {
    std::lock_guard lock(mutex_);
    return handler_failures_;
  }

 private:
  void deliver(const Notification<T>& notification) {
    const char* callback = "on_add";
    try {
      if (const auto* add = std::get_if<AddNotification<T>>(&notification)) {
        if (handler_.on_add) handler_.on_add(add->object, add->is_in_initial_list);
      } else if (const auto* update = std::get_if<UpdateNotification<T>>(&notification)) {
        callback = "on_update";
        if (handler_.on_update) handler_.on_update(update->old_object, update->new_object);
      } else {
        callback = "on_delete";
        const auto& remove = std::get<DeleteNotification<T>>(notification);
        if (handler_.on_delete) handler_.on_delete(remove.object);
      }
    } catch (const std::exception& e) {
      failed(callback, e.what());
    } catch (...) {
      failed(callback, "a non-standard exception");
    }
  }

  // Counts a notification as delivered (one lock per notification); false once stopped.
  bool count_delivered(const Notification<T>& notification) {
    std::lock_guard lock(mutex_);
    --in_flight_;
    ++delivered_;
    if (options_.max_pending != 0) room_.notify_all_locked();
    if (const auto* add = std::get_if<AddNotification<T>>(&notification);
        add && add->is_in_initial_list) {
      --initial_pending_;
    }
    return !stopped_;
  }

  void discard(std::size_t count) {
    detail::log_undelivered(name_, count);
    std::lock_guard lock(mutex_);
    undelivered_ += count;
    in_flight_ = 0;
  }

  void failed(std::string_view callback, std::string_view what) {
    detail::log_handler_failure(name_, callback, what);
    std::lock_guard lock(mutex_);
    ++handler_failures_;
  }

  const std::string name_;
  const ResourceEventHandlerFuncs<T> handler_;
  const std::function<bool()> upstream_has_synced_;
  const Options options_;
  using Buffer = std::vector<Notification<T>>;
  // A delivered buffer above this many notifications (~40 KB) is freed, not kept.
  static constexpr std::size_t kKeptCapacity = 1024;

  mutable std::mutex mutex_;
  Buffer pending_;
  std::size_t in_flight_ = 0;
  std::size_t max_pending_ = 0;
  std::size_t initial_pending_ = 0;
  std::size_t handler_failures_ = 0;
  std::size_t undelivered_ = 0;
  std::uint64_t delivered_ = 0;
  bool stopped_ = false;
  async::Condition ready_;
  async::Condition room_;
};

}  // namespace rg::informer
