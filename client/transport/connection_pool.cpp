// The connection pool: idle list (most recently used first), slot accounting, and FIFO waiters
// (an async::WaiterList) each granted a lease -- a connection or the slot to open one -- on its
// own executor, so a grant made on one thread reaches a waiter on another.
#include "client/transport/connection_pool.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <optional>

namespace rg::client {

namespace asio = boost::asio;
using boost::system::error_code;

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
  {
    std::lock_guard lock(mutex_);
    if (std::optional<ConnectionLease> lease = try_lease_locked(tls)) co_return std::move(*lease);
  }
  // Parks until release() grants a lease, the deadline passes or the coroutine is cancelled;
  // whichever comes first takes the waiter off the list and completes it.
  asio::steady_timer timer(executor, deadline);
  auto initiate = [this, &timer, deadline, tls](auto handler) {
    auto waiter = Waiters::make(std::move(handler));
    std::lock_guard lock(mutex_);
    if (std::optional<ConnectionLease> lease = try_lease_locked(tls)) {  // released meanwhile
      std::move(waiter).complete({}, std::move(*lease));
      return;
    }
    const std::uint64_t id = ++last_waiter_id_;
    if (auto slot = waiter.cancellation_slot(); slot.is_connected()) {
      slot.template emplace<CancelWaiter>(
          CancelWaiter{weak_from_this(), id, asio::error::operation_aborted});
    }
    waiters_.push(id, std::move(waiter));
    if (deadline != kNoDeadline) {
      timer.async_wait(
          [cancel = CancelWaiter{weak_from_this(), id, asio::error::timed_out}](error_code ec) {
            if (!ec) cancel(asio::cancellation_type::terminal);
          });
    }
  };
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  ConnectionLease lease =
      co_await asio::async_initiate<decltype(token), void(error_code, ConnectionLease)>(initiate,
                                                                                        token);
  timer.cancel();
  if (ec == asio::error::timed_out) {
    std::lock_guard lock(mutex_);
    throw TransportError(
        TransportErrorKind::kTimeout, ec,
        "timed out waiting for a free connection (" + std::to_string(open_) + " in use)");
  }
  if (ec) {
    throw TransportError(TransportErrorKind::kCancelled, asio::error::operation_aborted,
                         "cancelled while waiting for a free connection");
  }
  // A connection handed over from an exchange that began before a rotation: the slot is kept,
  // the connection is not.
  if (lease.connection && lease.connection->tls_context() != tls) lease.connection.reset();
  co_return lease;
}

std::optional<ConnectionLease> ConnectionPool::try_lease_locked(const asio::ssl::context* tls) {
  if (auto connection = take_idle_locked(tls)) {
    return ConnectionLease(shared_from_this(), std::move(connection));
  }
  if (open_ < max_connections_) {
    ++open_;
    return ConnectionLease(shared_from_this(), nullptr);
  }
  return std::nullopt;
}

void ConnectionPool::CancelWaiter::operator()(asio::cancellation_type type) const {
  if (type == asio::cancellation_type::none) return;
  auto pool = this->pool.lock();
  if (!pool) return;
  std::unique_lock lock(pool->mutex_);
  std::optional<Waiters::Completion> waiter = pool->waiters_.remove(id);
  lock.unlock();
  if (waiter) std::move(*waiter).complete(reason, ConnectionLease());
}

void ConnectionPool::release(std::unique_ptr<Connection> connection, bool reusable) {
  std::optional<Waiters::Completion> next;
  {
    std::lock_guard lock(mutex_);
    if (connection && reusable) {
      connection->reused = true;
      connection->idle_since = std::chrono::steady_clock::now();
    } else {
      connection.reset();
    }
    if (!waiters_.empty()) {
      next = waiters_.pop_front();  // the slot passes to it, with the connection if any
    } else if (connection) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
  }
  // A lease the waiter never reads (its executor gone) gives the slot back when dropped.
  if (next)
    std::move(*next).complete({}, ConnectionLease(shared_from_this(), std::move(connection)));
}

TransportStats ConnectionPool::stats() const {
  std::lock_guard lock(mutex_);
  return {open_, idle_.size(), waiters_.size()};
}

}  // namespace rg::client
