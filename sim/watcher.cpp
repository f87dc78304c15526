// Watcher: a mutex-guarded queue and the async::Condition its readers wait on.
#include "sim/watcher.hpp"

#include <utility>

namespace rg::sim {

std::string_view to_string(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

Watcher::Watcher(std::string namespace_, std::size_t capacity)
    : namespace_(std::move(namespace_)), capacity_(capacity) {}

void Watcher::push(StoreEvent event) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  if (pending_.size() >= capacity_) {
    overflowed_ = true;
    closed_ = true;
    pending_.clear();
  } else {
    pending_.push_back(std::move(event));
  }
  changed_.notify_all_locked();
}

void Watcher::wake() {
  std::lock_guard lock(mutex_);
  woken_ = true;
  changed_.notify_all_locked();
}

void Watcher::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all_locked();
}

bool Watcher::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

bool Watcher::overflowed() const {
  std::lock_guard lock(mutex_);
  return overflowed_;
}

boost::asio::awaitable<void> Watcher::wait() {
  auto ready = [this] { return !pending_.empty() || closed_ || std::exchange(woken_, false); };
  co_await changed_.until(ready);
}

std::vector<StoreEvent> Watcher::take() {
  std::lock_guard lock(mutex_);
  std::vector<StoreEvent> events(std::make_move_iterator(pending_.begin()),
                                 std::make_move_iterator(pending_.end()));
  pending_.clear();
  return events;
}

boost::asio::awaitable<std::vector<StoreEvent>> Watcher::next() {
  co_await wait();
  co_return take();
}

}  // namespace rg::sim
