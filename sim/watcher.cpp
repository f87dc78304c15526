// Watcher: a mutex-guarded queue plus a one-slot concurrent channel as the wake-up signal.
#include "sim/watcher.hpp"

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <utility>

namespace rg::sim {

struct Watcher::Signal {
  explicit Signal(const boost::asio::any_io_executor& executor) : channel(executor, 1) {}
  boost::asio::experimental::concurrent_channel<void(boost::system::error_code)> channel;
};

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

Watcher::Watcher(const boost::asio::any_io_executor& executor, std::string namespace_,
                 std::size_t capacity)
    : namespace_(std::move(namespace_)),
      capacity_(capacity),
      signal_(std::make_unique<Signal>(executor)) {}

Watcher::~Watcher() = default;

void Watcher::notify() { signal_->channel.try_send(boost::system::error_code{}); }

void Watcher::push(StoreEvent event) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    if (pending_.size() >= capacity_) {
      overflowed_ = true;
      closed_ = true;
      pending_.clear();
    } else {
      pending_.push_back(std::move(event));
    }
  }
  notify();
}

void Watcher::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  notify();
}

void Watcher::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  notify();
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
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (!pending_.empty() || closed_ || std::exchange(woken_, false)) co_return;
    }
    co_await signal_->channel.async_receive(boost::asio::use_awaitable);
  }
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
