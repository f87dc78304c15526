// The connection pool: idle list (most recently used first), slot accounting, FIFO waiters woken
// through a concurrent channel so a grant made on one thread reaches a waiter on another.
#include "client/transport/connection_pool.hpp"

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace rg::client {

namespace asio = boost::asio;
using boost::system::error_code;

struct ConnectionPool::Waiter {
  explicit Waiter(const asio::any_io_executor& executor) : wakeup(executor, 1) {}
  asio::experimental::concurrent_channel<void(error_code)> wakeup;
  bool granted = false;
  std::unique_ptr<Connection> connection;  ///< handed over with the grant, may be null
};

ConnectionLease& ConnectionLease::operator=(ConnectionLease&& other) noexcept {
  if (this != &other) {
    release();
    pool_ = std::move(other.pool_);
    connection = std::move(other.connection);
    reusable = other.reusable;
  }
  return *this;
}

void ConnectionLease::release() {
  if (pool_) {
    std::exchange(pool_, nullptr)->release(std::move(connection), reusable);
  } else {
    connection.reset();
  }
  reusable = false;
}

ConnectionPool::ConnectionPool(std::size_t max_connections,
                               std::chrono::steady_clock::duration idle_timeout)
    : max_connections_(std::max<std::size_t>(max_connections, 1)), idle_timeout_(idle_timeout) {}

ConnectionPool::~ConnectionPool() = default;

std::unique_ptr<Connection> ConnectionPool::take_idle_locked(const asio::ssl::context* tls) {
  const auto idle_before = idle_.size();
  std::erase_if(idle_, [tls](const auto& connection) { return connection->tls_context() != tls; });
  open_ -= idle_before - idle_.size();  // closed by their destructors; their slots are free again
  const auto now = std::chrono::steady_clock::now();
  while (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    if (now - connection->idle_since < idle_timeout_ && connection->looks_alive()) {
      return connection;
    }
    --open_;  // closed by the destructor; its slot is free again
  }
  return nullptr;
}

asio::awaitable<ConnectionLease> ConnectionPool::acquire(Deadline deadline,
                                                         const asio::ssl::context* tls) {
  const auto self = shared_from_this();  // alive while this coroutine waits
  const auto executor = co_await asio::this_coro::executor;
  std::shared_ptr<Waiter> waiter;
  {
    std::lock_guard lock(mutex_);
    if (auto connection = take_idle_locked(tls)) {
      co_return ConnectionLease(self, std::move(connection));
    }
    if (open_ < max_connections_) {
      ++open_;
      co_return ConnectionLease(self, nullptr);
    }
    waiter = std::make_shared<Waiter>(executor);
    waiters_.push_back(waiter);
  }
  // The deadline wakes the waiter through its channel, like a grant would; whichever comes
  // first fills the channel's one slot.
  asio::steady_timer timer(executor, deadline);
  if (deadline != kNoDeadline) {
    timer.async_wait([weak = std::weak_ptr<Waiter>(waiter)](error_code ec) {
      if (auto waiting = weak.lock(); waiting && !ec) {
        waiting->wakeup.try_send(error_code(asio::error::timed_out));
      }
    });
  }
  error_code ec;
  co_await waiter->wakeup.async_receive(asio::redirect_error(asio::use_awaitable, ec));
  timer.cancel();
  std::unique_lock lock(mutex_);
  if (!waiter->granted) {
    std::erase(waiters_, waiter);
    const auto in_use = open_;
    lock.unlock();
    if (ec == asio::error::timed_out) {
      throw TransportError(
          TransportErrorKind::kTimeout, ec,
          "timed out waiting for a free connection (" + std::to_string(in_use) + " in use)");
    }
    throw TransportError(TransportErrorKind::kCancelled, asio::error::operation_aborted,
                         "cancelled while waiting for a free connection");
  }
  // A connection handed over from an exchange that began before a rotation: the slot is kept,
  // the connection is not.
  if (waiter->connection && waiter->connection->tls_context() != tls) waiter->connection.reset();
  co_return ConnectionLease(self, std::move(waiter->connection));
}

void ConnectionPool::release(std::unique_ptr<Connection> connection, bool reusable) {
  std::shared_ptr<Waiter> next;
  {
    std::lock_guard lock(mutex_);
    if (connection && reusable) {
      connection->reused = true;
      connection->idle_since = std::chrono::steady_clock::now();
    } else {
      connection.reset();
    }
    if (!waiters_.empty()) {
      next = std::move(waiters_.front());
      waiters_.pop_front();
      next->granted = true;
      next->connection = std::move(connection);
    } else if (connection) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
  }
  if (next) next->wakeup.try_send(error_code{});
}

TransportStats ConnectionPool::stats() const {
  std::lock_guard lock(mutex_);
  return {open_, idle_.size(), waiters_.size()};
}

}  // namespace rg::client
