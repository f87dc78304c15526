// SharedProcessor: fans the informer's notifications out to every registered handler
// (client-go's sharedProcessor). Each handler is a ProcessorListener with its own buffer and
// its own delivery coroutine on a strand of its own -- so with several io threads a handler that
// blocks holds only its own strand, never the informer's or another handler's; resyncs go only
// to the handlers whose resync period is due.
//
// Resync schedule: a handler's period is at least kMinimumResyncPeriod (client-go's
// minimumResyncPeriod, 1 s; shorter ones are raised to it), and the informer checks every
// resync_check_period() -- the shortest period of its handlers, recomputed whenever one is added
// or removed, before or after the informer started. client-go fixes its resyncCheckPeriod when
// the informer starts: a handler added later with a shorter period is raised to it, and one added
// to a started informer that did no resyncs gets none (shared_informer.go,
// AddEventHandlerWithOptions and determineResyncPeriod). Here the check shrinks instead (see
// SharedIndexInformer::resync), so a late handler gets the period it asked for.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "async/condition.hpp"
#include "informer/processor_listener.hpp"

namespace rg::informer {

namespace detail {
/// Logs a listener loop that ended with an exception (ProcessorListener catches handler
/// exceptions itself, so this means a bug or an allocation failure).
void log_listener_crash(std::string_view handler, const std::exception_ptr& error);

template <KubeObject T>
class SharedProcessor {
 public:
  using Clock = std::chrono::steady_clock;
  using Listener = ProcessorListener<T>;

  /// The shortest resync period a handler gets (client-go's minimumResyncPeriod).
  static constexpr std::chrono::seconds kMinimumResyncPeriod{1};

  /// When to check for due resyncs (SharedIndexInformer::resync): every `period` (none: no
  /// handler wants resyncs); `version` changes whenever a handler is added or removed.
  struct ResyncSchedule {
    std::optional<Clock::duration> period;
    std::uint64_t version = 0;
  };

  /// `has_synced`: the informer's has_synced, the upstream of every handler's has_synced.
  explicit SharedProcessor(std::function<bool()> has_synced,
                           std::function<Clock::time_point()> now = &Clock::now)
      : has_synced_(std::move(has_synced)),
        now_(std::move(now)),
        done_(mutex_),
        schedule_changed_(mutex_) {}

  SharedProcessor(const SharedProcessor&) = delete;
  SharedProcessor& operator=(const SharedProcessor&) = delete;

  /// Registers a handler; a zero resync period means it never asks for resyncs, a positive one
  /// is raised to kMinimumResyncPeriod. When the processor is running the handler starts at once
  /// (after stop() it is born stopped).
  std::shared_ptr<Listener> add_listener(std::string name, ResourceEventHandlerFuncs<T> handler,
                                         Clock::duration resync_period,
                                         typename Listener::Options options = {}) {
    if (resync_period > Clock::duration::zero() && resync_period < kMinimumResyncPeriod) {
      resync_period = kMinimumResyncPeriod;
    }
    auto listener =
        std::make_shared<Listener>(std::move(name), std::move(handler), has_synced_, options);
    std::lock_guard lock(mutex_);
    entries_.push_back(Entry{listener, resync_period, now_() + resync_period, false});
    schedule_changed_locked();
    if (stopped_) {
      listener->stop();
    } else if (executor_) {
      spawn_locked(listener);
    }
    return listener;
  }

  /// Unregisters and stops a handler. Returns false if it was not registered here.
  bool remove_listener(const std::shared_ptr<Listener>& listener) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.listener == listener; });
    if (it == entries_.end()) return false;
    entries_.erase(it);
    listener->stop();
    schedule_changed_locked();
    return true;
  }

  /// Hands a notification to every handler, or -- for a resync -- only to those whose resync
  /// period was due at the last should_resync().
  void distribute(const Notification<T>& notification, bool is_resync) {
    std::lock_guard lock(mutex_);
    for (const Entry& entry : entries_) {
      if (!is_resync || entry.syncing) entry.listener->add(notification);
    }
  }

  /// Marks the handlers whose resync period has elapsed as syncing (and schedules their next
  /// one); true if there is at least one, i.e. the informer should resync its DeltaFIFO now.
  bool should_resync() {
    std::lock_guard lock(mutex_);
    const Clock::time_point now = now_();
    bool needed = false;
    for (Entry& entry : entries_) {
      entry.syncing = entry.resync_period > Clock::duration::zero() && now >= entry.next_resync;
      if (entry.syncing) {
        needed = true;
        entry.next_resync = now + entry.resync_period;
      }
    }
    return needed;
  }

  /// The shortest resync period of the handlers (how often to call should_resync()), if any.
  std::optional<Clock::duration> resync_check_period() const {
    std::lock_guard lock(mutex_);
    return resync_check_period_locked();
  }

  ResyncSchedule resync_schedule() const {
    std::lock_guard lock(mutex_);
    return {resync_check_period_locked(), schedule_version_};
  }

  /// Returns once the schedule is no longer `version` (a handler was added or removed).
  boost::asio::awaitable<void> resync_schedule_changed(std::uint64_t version) {
    auto changed = [this, version] { return schedule_version_ != version; };
    co_await schedule_changed_.until(changed);
  }

  /// Whether any handler has a bounded buffer (then the consumer calls wait_for_room()).
  bool has_bounded_listeners() const {
    std::lock_guard lock(mutex_);
    return std::any_of(entries_.begin(), entries_.end(),
                       [](const Entry& entry) { return entry.listener->max_pending_bound() != 0; });
  }

  /// Returns once every bounded handler has room for more notifications. Only the consumer adds
  /// notifications, so room once seen stays until its next pop.
  boost::asio::awaitable<void> wait_for_room() {
    for (const auto& listener : listeners()) co_await listener->wait_for_room();
  }

  std::vector<std::shared_ptr<Listener>> listeners() const {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<Listener>> out;
    for (const Entry& entry : entries_) out.push_back(entry.listener);
    return out;
  }

  /// Runs every handler's delivery loop (and those of handlers added later), each on its own
  /// strand of the calling coroutine's executor -- of the executor under it when that is a
  /// strand itself, as a SharedInformerFactory's informers run on strands; returns after stop()
  /// once every loop has finished.
  boost::asio::awaitable<void> run() {
    auto executor = without_strand(co_await boost::asio::this_coro::executor);
    {
      std::lock_guard lock(mutex_);
      if (executor_) throw std::logic_error("SharedProcessor::run() called twice");
      executor_ = executor;
      if (!stopped_) {
        for (const Entry& entry : entries_) spawn_locked(entry.listener);
      }
    }
    auto finished = [this] { return stopped_ && running_ == 0; };
    co_await done_.until(finished);
  }

  /// Stops every handler (see ProcessorListener::stop) and lets run() return.
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (const Entry& entry : entries_) entry.listener->stop();
    done_.notify_all_locked();
  }

 private:
  struct Entry {
    std::shared_ptr<Listener> listener;
    Clock::duration resync_period;
    Clock::time_point next_resync;
    bool syncing;
  };

  std::optional<Clock::duration> resync_check_period_locked() const {
    std::optional<Clock::duration> shortest;
    for (const Entry& entry : entries_) {
      if (entry.resync_period <= Clock::duration::zero()) continue;
      if (!shortest || entry.resync_period < *shortest) shortest = entry.resync_period;
    }
    return shortest;
  }

  void schedule_changed_locked() {
    ++schedule_version_;
    schedule_changed_.notify_all_locked();
  }

  static boost::asio::any_io_executor without_strand(const boost::asio::any_io_executor& executor) {
    using boost::asio::any_io_executor;
    using boost::asio::strand;
    if (const auto* s = executor.target<strand<any_io_executor>>()) return s->get_inner_executor();
    if (const auto* s = executor.target<strand<boost::asio::io_context::executor_type>>()) {
      return s->get_inner_executor();
    }
    return executor;
  }

  // Starts a listener's delivery loop on a new strand. It is posted, never run inline: co_spawn may
  // start a coroutine in the calling thread, which must not happen under our lock or a caller's.
  void spawn_locked(const std::shared_ptr<Listener>& listener) {
    ++running_;
    auto on_exit = [this, listener](const std::exception_ptr& error) {
      if (error) detail::log_listener_crash(listener->name(), error);
      std::lock_guard lock(mutex_);
      --running_;
      done_.notify_all_locked();
    };
    auto start = [executor = *executor_, listener, on_exit = std::move(on_exit)]() mutable {
      boost::asio::co_spawn(boost::asio::make_strand(executor), listener->run(),
                            std::move(on_exit));
    };
    boost::asio::post(*executor_, std::move(start));
  }

  const std::function<bool()> has_synced_;
  const std::function<Clock::time_point()> now_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::optional<boost::asio::any_io_executor> executor_;
  std::size_t running_ = 0;
  bool stopped_ = false;
  async::Condition done_;
  std::uint64_t schedule_version_ = 0;
  async::Condition schedule_changed_;
};

}  // namespace detail
}  // namespace rg::informer
