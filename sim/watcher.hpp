// Watcher: one subscription to the changes of one resource type, fed by the Store and drained
// by a watch handler (or an in-process controller) coroutine. Thread-safe; bounded.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "async/condition.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

enum class EventType { kAdded, kModified, kDeleted };

/// One change. `object` carries the change's resourceVersion (a DELETED event carries the last
/// state re-encoded with the deletion's resourceVersion); `previous` is the state before
/// (null for kAdded) so selector-filtered watches can tell objects entering and leaving.
struct StoreEvent {
  EventType type;
  ObjectPtr object;
  ObjectPtr previous;
};

std::string_view to_string(EventType type);

class Watcher {
 public:
  /// `namespace_` empty = all namespaces. `capacity` bounds the pending events: a watcher that
  /// falls further behind is closed (its client re-watches from its last resourceVersion).
  Watcher(std::string namespace_, std::size_t capacity);
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  /// Waits until events are pending, the watcher is closed, or wake() was called since the
  /// last wait(); the waiting coroutine resumes on its own executor. Consumes no events, so it
  /// is safe to race against a timer (`wait() || timer`): call take() afterwards.
  boost::asio::awaitable<void> wait();
  /// Ends the current or the next wait() even without events: a timer's handler calls it where
  /// racing a timer in each wait would cost more than the wait.
  void wake();
  /// Takes every pending event (possibly none).
  std::vector<StoreEvent> take();
  /// wait() then take(). An empty result means closed (and drained).
  boost::asio::awaitable<std::vector<StoreEvent>> next();
  /// Stops the watcher; a pending next() returns what is left, then empty.
  void close();
  bool closed() const;
  /// True when close() came from falling behind (capacity exceeded).
  bool overflowed() const;

  // For the Store (called under its lock).
  const std::string& namespace_filter() const { return namespace_; }
  void push(StoreEvent event);

 private:
  std::string namespace_;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  async::Condition changed_{mutex_};  // events pending, closed, or woken
  std::deque<StoreEvent> pending_;
  bool closed_ = false;
  bool overflowed_ = false;
  bool woken_ = false;
};

}  // namespace rg::sim
