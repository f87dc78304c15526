// queue.hpp: the work queue core, client-go's util/workqueue Typed queue for coroutine workers.
//
//  - add: a key already waiting is not queued twice; a key being processed that is added again
//    is queued once more only after its done(), so no key is handled by two workers at once
//    (client-go's queue / dirty / processing sets, kept here as one ItemTable of per-key state,
//    each key stored once, and a FIFO of pointers into it).
//  - get: `co_await queue->get()` returns a Claim on the next key, suspending while the queue
//    is empty; an empty Claim means the queue is shut down and empty: the worker should return.
//    The Claim refers to the key the queue stores (no copy) and gives it back, client-go's
//    done(), when it is destroyed or its done() is called:
//
//      while (auto key = co_await queue->get()) {  // Queue::Claim
//        co_await reconcile(*key);                  // *key: const Key&, valid until done
//      }                                            // done: the key may be handed out again
//
//  - len, shut_down, shut_down_with_drain, shutting_down as in client-go.
//
// Every member is safe to call from any thread. Waiting getters are completed on their own
// executor, so workers may run on several threads of one io_context or on several io_contexts.
// A Claim may be done on any thread, but the queue must outlive it (a worker holds the queue's
// shared_ptr while it works, as it must to call get()).
// A waiting get() honours its coroutine's cancellation slot (it then throws operation_aborted
// and takes no key). Queues are shared: create them with create() and keep the shared_ptr.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "async/waiter_list.hpp"
#include "workqueue/clock.hpp"
#include "workqueue/detail/item_table.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/metrics.hpp"

namespace rg::workqueue {

struct QueueOptions {
  // The metrics `name` label; required when `metrics` is set.
  std::string name{};
  // Where the queue's metrics are listed. Null: no metrics and no timestamps taken.
  std::shared_ptr<MetricsProvider> metrics{};
  // Time source for metrics and delays (and rate limiters built for this queue). Null: SteadyClock.
  std::shared_ptr<const Clock> clock{};
};

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class Queue : public std::enable_shared_from_this<Queue<Key, Hash, KeyEqual>> {
  using Items = detail::ItemTable<Key, Hash, KeyEqual>;
  using Item = typename Items::Item;

 protected:
  struct Private {
    explicit Private() = default;
  };

 public:
  // A key handed out by get() and held for processing: while it is held, an add() of the key
  // only marks it to be queued again at done(), so no other worker gets it. Move-only, like a
  // std::unique_lock; an empty Claim (get()'s answer once the queue is shut down and empty, or a
  // moved-from one) holds nothing.
  class Claim {
   public:
    Claim() = default;
    Claim(Claim&& other) noexcept
        : queue_(std::exchange(other.queue_, nullptr)),
          item_(std::exchange(other.item_, nullptr)) {}
    Claim& operator=(Claim&& other) noexcept {
      if (this != &other) {
        done();
        queue_ = std::exchange(other.queue_, nullptr);
        item_ = std::exchange(other.item_, nullptr);
      }
      return *this;
    }
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim() { done(); }

    // True while it holds a key.
    explicit operator bool() const noexcept { return item_ != nullptr; }
    // The key, as the queue stores it; valid until done(). Copy it to keep it longer.
    const Key& operator*() const noexcept { return item_->key; }
    const Key* operator->() const noexcept { return &item_->key; }

    // Gives the key back (client-go's Done): if it was added meanwhile it is queued again, and a
    // shut_down_with_drain() waiting for it may complete. Then the Claim is empty; calling done()
    // on an empty Claim does nothing.
    void done() noexcept {
      if (item_ != nullptr) std::exchange(queue_, nullptr)->done(std::exchange(item_, nullptr));
    }

   private:
    friend class Queue;
    Claim(Queue* queue, Item* item) noexcept : queue_(queue), item_(item) {}

    Queue* queue_ = nullptr;
    Item* item_ = nullptr;
  };

  static std::shared_ptr<Queue> create(QueueOptions options = {}) {
    return std::make_shared<Queue>(Private{}, std::move(options));
  }

  Queue(Private, QueueOptions options)
      : clock_(options.clock ? std::move(options.clock) : SteadyClock::shared()),
        metrics_on_(options.metrics != nullptr) {
    if (metrics_on_) {
      registration_ = options.metrics->register_queue(std::move(options.name),
                                                      [this] { return metrics_snapshot(); });
    }
  }

  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  virtual ~Queue() {
    // A Claim outliving its queue would give its key back to freed memory.
    assert(processing_ == 0 && "a workqueue was destroyed while a Claim on one of its keys lived");
    registration_ = {};
    std::vector<Getter> getters;
    std::vector<Drainer> drainers;
    {
      std::lock_guard lock(mu_);
      getters = getters_.take_all();
      drainers = drainers_.take_all();
    }
    wake(std::move(getters), std::move(drainers));
  }

  // Queues `key` for processing unless it is already waiting; ignored once shutting down.
  void add(const Key& key) { add_item(key); }
  void add(Key&& key) { add_item(std::move(key)); }

  // A Claim on the next key to process, or an empty Claim once the queue is shut down and
  // empty. Keys still queued at shutdown are handed out first.
  boost::asio::awaitable<Claim> get() {
    {
      std::lock_guard lock(mu_);
      if (!queue_.empty()) co_return Claim(this, pop_locked());
      if (shutting_down_) co_return Claim{};
    }
    auto initiation = [this](auto handler) { this->wait_for_key(std::move(handler)); };
    co_return co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                                   void(boost::system::error_code, Claim)>(
        initiation, boost::asio::use_awaitable);
  }

  // Keys waiting to be handed out (not counting those being processed).
  std::size_t len() const {
    std::lock_guard lock(mu_);
    return queue_.size();
  }

  // Stops accepting keys and wakes every waiting get() (they return std::nullopt). Keys already
  // queued are still handed out. Also ends any shut_down_with_drain() wait.
  void shut_down() {
    std::vector<Getter> getters;
    std::vector<Drainer> drainers;
    {
      std::lock_guard lock(mu_);
      shutting_down_ = true;
      drain_ = false;
      getters = getters_.take_all();
      drainers = drainers_.take_all();
      on_shut_down_locked();
    }
    wake(std::move(getters), std::move(drainers));
  }

  // Shuts down like shut_down(), then completes once no key is being processed (every key handed
  // out has had its done()). Workers must keep calling done(), or this never completes.
  boost::asio::awaitable<void> shut_down_with_drain() {
    auto initiation = [this](auto handler) { this->begin_drain(std::move(handler)); };
    co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                         void(boost::system::error_code)>(
        initiation, boost::asio::use_awaitable);
  }

  bool shutting_down() const {
    std::lock_guard lock(mu_);
    return shutting_down_;
  }

 protected:
  using Getters = async::WaiterList<Claim>;
  using Getter = typename Getters::Completion;
  using Drainer = typename async::WaiterList<>::Completion;

  // A key given straight to a waiting get(); completed after the lock is released.
  struct Handoff {
    Getter getter;
    Item* item;
  };

  void complete(Handoff&& handoff) {
    std::move(handoff.getter).complete_for(this->shared_from_this(), {}, Claim(this, handoff.item));
  }

  // add() with mu_ held. Returns the handoff to complete once mu_ is released, if any.
  template <class K>
  [[nodiscard]] std::optional<Handoff> add_locked(K&& key) {
    if (shutting_down_) return std::nullopt;
    Item* item = items_.find_or_insert(std::forward<K>(key));
    if (item->dirty) return std::nullopt;
    item->dirty = true;
    if (metrics_on_) {
      ++stats_.adds;
      ++stats_.depth;
      item->added_at = clock_->now();
    }
    if (item->processing) return std::nullopt;
    return make_ready_locked(item);
  }

  void count_retry_locked() {
    if (metrics_on_) ++stats_.retries;
  }

  // Called with mu_ held when the queue starts shutting down.
  virtual void on_shut_down_locked() {}

  const Clock& clock() const { return *clock_; }

  mutable std::mutex mu_;
  bool shutting_down_ = false;

 private:
  struct Stats {
    std::int64_t depth = 0;
    std::uint64_t adds = 0;
    std::uint64_t retries = 0;
    LatencyHistogram queue_duration;
    LatencyHistogram work_duration;
  };

  // Completes a waiter if its coroutine's cancellation slot fires before it got a key.
  class CancelWaiter {
   public:
    CancelWaiter(std::weak_ptr<Queue> queue, std::uint64_t id)
        : queue_(std::move(queue)), id_(id) {}
    void operator()(boost::asio::cancellation_type type) {
      if (type == boost::asio::cancellation_type::none) return;
      if (auto queue = queue_.lock()) queue->cancel_waiter(id_);
    }

   private:
    std::weak_ptr<Queue> queue_;
    std::uint64_t id_;
  };

  template <class K>
  void add_item(K&& key) {
    std::optional<Handoff> handoff;
    {
      std::lock_guard lock(mu_);
      handoff = add_locked(std::forward<K>(key));
    }
    if (handoff) complete(std::move(*handoff));
  }

  // Ends the processing of `item`'s key: a Claim's done().
  void done(Item* item) noexcept {
    std::optional<Handoff> handoff;
    std::vector<Drainer> drained;
    {
      std::lock_guard lock(mu_);
      item->processing = false;
      --processing_;
      if (metrics_on_) stats_.work_duration.observe(clock_->now() - item->started_at);
      if (item->dirty) {
        handoff = make_ready_locked(item);
      } else {
        items_.erase(item);
      }
      if (processing_ == 0 && drain_) drained = drainers_.take_all();
    }
    if (handoff) complete(std::move(*handoff));
    for (auto& d : drained) std::move(d).complete({});
  }

  // `item`'s key is ready: give it to a waiting get(), or queue it.
  std::optional<Handoff> make_ready_locked(Item* item) {
    if (getters_.empty()) {
      queue_.push_back(item);
      return std::nullopt;
    }
    start_processing_locked(*item);
    return Handoff{getters_.pop_front(), item};
  }

  void start_processing_locked(Item& item) {
    item.dirty = false;
    item.processing = true;
    ++processing_;
    if (metrics_on_) {
      const TimePoint now = clock_->now();
      --stats_.depth;
      stats_.queue_duration.observe(now - item.added_at);
      item.started_at = now;
    }
  }

  Item* pop_locked() {
    Item* item = queue_.front();
    queue_.pop_front();
    start_processing_locked(*item);
    return item;
  }

  template <class Handler>
  void wait_for_key(Handler&& handler) {
    Item* item = nullptr;
    {
      std::lock_guard lock(mu_);
      if (queue_.empty() && !shutting_down_) {
        const std::uint64_t id = next_waiter_id_++;
        auto getter = Getters::make(std::forward<Handler>(handler));
        install_cancellation(getter.cancellation_slot(), id);
        getters_.push(id, std::move(getter));
        return;
      }
      // A key arrived (or the queue shut down) between get()'s first look and now.
      if (!queue_.empty()) item = pop_locked();
    }
    auto getter = Getters::make(std::forward<Handler>(handler));
    if (item != nullptr) {
      complete(Handoff{std::move(getter), item});
    } else {
      std::move(getter).complete({}, Claim{});
    }
  }

  template <class Handler>
  void begin_drain(Handler&& handler) {
    std::vector<Getter> getters;
    std::vector<Drainer> drainers;
    {
      std::lock_guard lock(mu_);
      shutting_down_ = true;
      drain_ = true;
      getters = getters_.take_all();
      on_shut_down_locked();
      if (processing_ == 0) {
        drainers.push_back(async::WaiterList<>::make(std::forward<Handler>(handler)));
      } else {
        const std::uint64_t id = next_waiter_id_++;
        auto drainer = async::WaiterList<>::make(std::forward<Handler>(handler));
        install_cancellation(drainer.cancellation_slot(), id);
        drainers_.push(id, std::move(drainer));
      }
    }
    wake(std::move(getters), std::move(drainers));
  }

  void install_cancellation(boost::asio::cancellation_slot slot, std::uint64_t id) {
    if (slot.is_connected()) slot.template emplace<CancelWaiter>(this->weak_from_this(), id);
  }

  void cancel_waiter(std::uint64_t id) {
    std::optional<Getter> getter;
    std::optional<Drainer> drainer;
    {
      std::lock_guard lock(mu_);
      getter = getters_.remove(id);
      if (!getter) drainer = drainers_.remove(id);
    }
    if (getter) std::move(*getter).complete(boost::asio::error::operation_aborted, Claim{});
    if (drainer) std::move(*drainer).complete(boost::asio::error::operation_aborted);
  }

  static void wake(std::vector<Getter> getters, std::vector<Drainer> drainers) {
    for (auto& g : getters) std::move(g).complete({}, Claim{});
    for (auto& d : drainers) std::move(d).complete({});
  }

  QueueMetricsSnapshot metrics_snapshot() const {
    std::lock_guard lock(mu_);
    QueueMetricsSnapshot s;
    s.depth = stats_.depth;
    s.adds = stats_.adds;
    s.retries = stats_.retries;
    s.queue_duration = stats_.queue_duration;
    s.work_duration = stats_.work_duration;
    const TimePoint now = clock_->now();
    items_.for_each([&](const Item& item) {
      if (!item.processing) return;
      const double running = std::chrono::duration<double>(now - item.started_at).count();
      s.unfinished_work_seconds += running;
      if (running > s.longest_running_processor_seconds) {
        s.longest_running_processor_seconds = running;
      }
    });
    return s;
  }

  const std::shared_ptr<const Clock> clock_;
  const bool metrics_on_;
  Items items_;
  std::deque<Item*> queue_;  // the keys ready to hand out, in order
  std::size_t processing_ = 0;
  bool drain_ = false;
  std::uint64_t next_waiter_id_ = 1;
  Getters getters_;
  async::WaiterList<> drainers_;
  Stats stats_;
  MetricsProvider::Registration registration_;
};

}  // namespace rg::workqueue
