// rate_limiter.hpp: the RateLimiter interface of client-go's workqueue: how long an item waits
// before its next retry (when), resetting its history (forget), and how many times it has
// failed (num_requeues). Implementations are safe to call from any thread.
#pragma once

#include "workqueue/clock.hpp"

namespace rg::workqueue {

template <class Key>
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // How long `key` should wait before it is processed again; counts as one failure of `key`.
  virtual Duration when(const Key& key) = 0;
  // Stops tracking `key` (it succeeded, or was given up on): its backoff starts over.
  virtual void forget(const Key& key) = 0;
  // How many times `key` has been through when() since it was last forgotten.
  virtual int num_requeues(const Key& key) = 0;
};

}  // namespace rg::workqueue
