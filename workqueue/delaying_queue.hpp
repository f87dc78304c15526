// delaying_queue.hpp: a Queue with add_after (client-go's DelayingInterface). Delayed keys wait
// in one DelayHeap driven by one steady_timer on the given executor, not one timer per key.
//  - a key delayed twice becomes ready at the earlier of the two times;
//  - a key added plainly while delayed is ready at once (its delayed entry still fires later,
//    and is then deduplicated or queued again like any add, as in client-go);
//  - every add_after counts in workqueue_retries_total; delayed keys are dropped at shutdown.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "workqueue/detail/delay_heap.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/detail/wakeup_timer.hpp"
#include "workqueue/queue.hpp"

namespace rg::workqueue {

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class DelayingQueue : public Queue<Key, Hash, KeyEqual> {
  using Base = Queue<Key, Hash, KeyEqual>;

 public:
  // `executor` runs the delay timer; it must outlive the queue's use (as for any Asio object).
  static std::shared_ptr<DelayingQueue> create(const boost::asio::any_io_executor& executor,
                                               QueueOptions options = {}) {
    return std::make_shared<DelayingQueue>(typename Base::Private{}, executor, std::move(options));
  }

  DelayingQueue(typename Base::Private key, const boost::asio::any_io_executor& executor,
                QueueOptions options)
      : Base(key, std::move(options)), timer_(executor) {}

  // Adds `key` once `delay` has passed (at once if delay <= 0). Ignored once shutting down.
  void add_after(const Key& key, Duration delay) {
    std::optional<typename Base::Handoff> handoff;
    {
      std::lock_guard lock(this->mu_);
      if (this->shutting_down_) return;
      this->count_retry_locked();
      if (delay <= Duration::zero()) {
        handoff = this->add_locked(key);
      } else if (heap_.push(key, this->clock().now() + delay)) {
        arm_locked();
      }
    }
    if (handoff) this->complete(std::move(*handoff));
  }

  // Keys currently waiting out a delay.
  std::size_t delayed() const {
    std::lock_guard lock(this->mu_);
    return heap_.size();
  }

 protected:
  void on_shut_down_locked() override {
    heap_.clear();
    timer_.cancel();
    armed_for_.reset();
  }

 private:
  // (Re)arms the timer for the earliest ready time unless it is already armed no later.
  void arm_locked() {
    const std::optional<TimePoint> next = heap_.next_ready();
    if (!next) return;
    if (armed_for_ && *armed_for_ <= *next) return;
    armed_for_ = next;
    std::weak_ptr<Base> weak = this->weak_from_this();
    timer_.arm(*next - this->clock().now(), [weak] {
      if (auto self = weak.lock()) static_cast<DelayingQueue&>(*self).on_timer();
    });
  }

  void on_timer() {
    std::vector<typename Base::Handoff> handoffs;
    {
      std::lock_guard lock(this->mu_);
      if (this->shutting_down_) return;
      armed_for_.reset();
      heap_.pop_ready(this->clock().now(), [&](Key&& key) {
        if (auto h = this->add_locked(std::move(key))) handoffs.push_back(std::move(*h));
      });
      arm_locked();
    }
    for (auto& h : handoffs) this->complete(std::move(h));
  }

  detail::DelayHeap<Key, Hash, KeyEqual> heap_;
  detail::WakeupTimer timer_;
  std::optional<TimePoint> armed_for_;  // when the timer is armed to fire, if it is
};

}  // namespace rg::workqueue
