// DeadlineWatchdog: the deadline of everything a connection does -- connect, TLS handshake,
// writing a request, reading its response header and body -- kept by one timer per connection
// instead of one per operation. (Beast's stream timeout starts and cancels a timer around every
// read and write: timer-queue work and timerfd_settime system calls on every request.) When the
// deadline passes it closes the socket, which ends the operation in progress, and the connection
// counts as timed out from then on. Moving the deadline later only stores it: when the timer
// fires early it re-arms itself for the stored deadline, so a connection whose operations each
// get "now + 30 s" arms its timer once per request, not once per read and write. Clearing the
// deadline (idle in the pool, a watch) disarms the timer, so no wait outlives the work.
// Internal to the transport; used on the connection's executor (like the connection itself).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>

#include "client/transport/http_message.hpp"

namespace rg::client {

class DeadlineWatchdog : public std::enable_shared_from_this<DeadlineWatchdog> {
 public:
  /// Watches `socket`, on its executor; stop() before the socket goes.
  explicit DeadlineWatchdog(boost::asio::ip::tcp::socket& socket);

  /// kNoDeadline: none (disarms the timer). A later deadline costs nothing; an earlier one
  /// re-arms the timer.
  void set_deadline(Deadline deadline);

  /// True once a deadline has passed: the socket is closed.
  bool expired() const { return expired_; }

  /// Disarms the timer and forgets the socket (the connection is going away).
  void stop();

 private:
  void arm();
  void fired();

  boost::asio::steady_timer timer_;
  boost::asio::ip::tcp::socket* socket_;
  Deadline deadline_ = kNoDeadline;
  bool armed_ = false;
  bool expired_ = false;
};

}  // namespace rg::client
