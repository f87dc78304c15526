// rate_limiting_queue.hpp: a DelayingQueue that asks a RateLimiter how long to delay a retry
// (client-go's RateLimitingInterface): add_rate_limited after a failure, forget after a success,
// num_requeues to decide when to give up. A controller's worker:
//
//   asio::awaitable<void> worker(std::shared_ptr<RateLimitingQueue<std::string>> queue) {
//     while (auto key = co_await queue->get()) {  // a Claim; empty: shut down and drained
//       const bool ok = co_await reconcile(*key);
//       if (ok) {
//         queue->forget(*key);                     // its backoff starts over
//       } else if (queue->num_requeues(*key) < 15) {
//         queue->add_rate_limited(*key);           // retry after max(5ms * 2^n, bucket)
//       }
//     }  // the Claim ends: done(), until which the key was held
//   }
#pragma once

#include <memory>
#include <utility>

#include "workqueue/default_controller_rate_limiter.hpp"
#include "workqueue/delaying_queue.hpp"
#include "workqueue/detail/key_hash.hpp"
#include "workqueue/rate_limiter.hpp"

namespace rg::workqueue {

template <class Key, class Hash = detail::KeyHash<Key>, class KeyEqual = std::equal_to<Key>>
class RateLimitingQueue : public DelayingQueue<Key, Hash, KeyEqual> {
  using Base = Queue<Key, Hash, KeyEqual>;

 public:
  // `limiter` null: default_controller_rate_limiter() on the queue's clock.
  static std::shared_ptr<RateLimitingQueue> create(
      const boost::asio::any_io_executor& executor,
      std::shared_ptr<RateLimiter<Key>> limiter = nullptr, QueueOptions options = {}) {
    return std::make_shared<RateLimitingQueue>(typename Base::Private{}, executor,
                                               std::move(limiter), std::move(options));
  }

  RateLimitingQueue(typename Base::Private key, const boost::asio::any_io_executor& executor,
                    std::shared_ptr<RateLimiter<Key>> limiter, QueueOptions options)
      : DelayingQueue<Key, Hash, KeyEqual>(key, executor, options),
        limiter_(limiter ? std::move(limiter)
                         : default_controller_rate_limiter<Key, Hash, KeyEqual>(
                               {.clock = options.clock})) {}

  // Adds `key` after the limiter's delay for it (one more failure of `key`).
  void add_rate_limited(const Key& key) { this->add_after(key, limiter_->when(key)); }
  // Resets `key`'s backoff; call after it was processed successfully.
  void forget(const Key& key) { limiter_->forget(key); }
  int num_requeues(const Key& key) { return limiter_->num_requeues(key); }

 private:
  const std::shared_ptr<RateLimiter<Key>> limiter_;
};

}  // namespace rg::workqueue
