// ConnectionPool: keep-alive connections to one server, capped. A request borrows a connection
// (or the right to open one) through a ConnectionLease; beyond the cap it waits, first come first
// served, until a lease is returned. A connection is only reused with the TLS context it was made
// with, so after a client certificate rotates no request goes out with the old one. Thread-safe;
// waiting is cancellable.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "async/waiter_list.hpp"
#include "client/transport/connection.hpp"
#include "client/transport/transport.hpp"

namespace rg::client {

class ConnectionPool;

/// A borrowed connection. `connection` is null when the pool granted a slot but had no idle
/// connection: the holder opens one. Returned to the pool on destruction; it is kept for reuse
/// only if `reusable` was set (a complete exchange ending in keep-alive), otherwise closed.
/// A lease without a pool (a watch's own connection) just closes its connection.
class ConnectionLease {
 public:
  ConnectionLease() = default;
  ConnectionLease(std::shared_ptr<ConnectionPool> pool, std::unique_ptr<Connection> connection)
      : connection(std::move(connection)), pool_(std::move(pool)) {}
  ConnectionLease(ConnectionLease&&) = default;
  ConnectionLease& operator=(ConnectionLease&& other) noexcept;
  ~ConnectionLease() { release(); }

  /// Gives the connection back (or closes it) now.
  void release();

  std::unique_ptr<Connection> connection;
  bool reusable = false;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

class ConnectionPool : public std::enable_shared_from_this<ConnectionPool> {
 public:
  ConnectionPool(std::size_t max_connections, std::chrono::steady_clock::duration idle_timeout);
  ~ConnectionPool();

  /// The most recently used live idle connection made with `tls`, else a slot to open one, else
  /// waits until `deadline`. Idle connections made with another TLS context (an old client
  /// certificate) are closed. Throws TransportError (kTimeout, or kCancelled when cancelled while
  /// waiting).
  boost::asio::awaitable<ConnectionLease> acquire(Deadline deadline,
                                                  const boost::asio::ssl::context* tls);

  TransportStats stats() const;

 private:
  friend class ConnectionLease;
  using Waiters = async::WaiterList<ConnectionLease>;

  // Takes a parked acquire() off the list and completes it with `reason` (operation_aborted
  // from its cancellation slot, timed_out from its deadline), unless a grant came first.
  struct CancelWaiter {
    std::weak_ptr<ConnectionPool> pool;
    std::uint64_t id;
    boost::system::error_code reason;
    void operator()(boost::asio::cancellation_type type) const;
  };

  void release(std::unique_ptr<Connection> connection, bool reusable);
  std::unique_ptr<Connection> take_idle_locked(const boost::asio::ssl::context* tls);
  // An idle connection made with `tls`, else a free slot, else nothing.
  std::optional<ConnectionLease> try_lease_locked(const boost::asio::ssl::context* tls);

  const std::size_t max_connections_;
  const std::chrono::steady_clock::duration idle_timeout_;
  mutable std::mutex mutex_;
  std::size_t open_ = 0;
  std::vector<std::unique_ptr<Connection>> idle_;
  Waiters waiters_;
  std::uint64_t last_waiter_id_ = 0;
};

}  // namespace rg::client
