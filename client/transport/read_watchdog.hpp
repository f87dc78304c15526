// ReadWatchdog: the deadline of a response body's reads, kept by one timer armed once per body.
// (Beast's stream timeout starts and cancels a timer around every read -- two timerfd_settime
// system calls per read, a large share of a fast watch stream's CPU.) When the deadline passes it
// cancels the read in progress and every later read fails; moving the deadline later only
// stores it (the timer re-arms itself when it fires early). Internal to the transport.
#pragma once

#include <boost/asio/steady_timer.hpp>

#include <memory>

#include "client/transport/http_message.hpp"

namespace rg::client {

class Connection;

class ReadWatchdog : public std::enable_shared_from_this<ReadWatchdog> {
 public:
  /// Watches reads of `connection`, on its executor; stop() before the connection goes.
  static std::shared_ptr<ReadWatchdog> create(Connection& connection);

  ReadWatchdog(Connection& connection, const boost::asio::any_io_executor& executor);

  /// kNoDeadline: none. A later deadline costs nothing; an earlier one re-arms the timer.
  void set_deadline(Deadline deadline);

  /// True once the deadline has passed: the read it cancelled, and every later one, timed out.
  bool expired() const { return expired_; }

  /// Disarms the timer and forgets the connection (the body ended or was abandoned).
  void stop();

 private:
  void arm();
  void fired();

  boost::asio::steady_timer timer_;
  Connection* connection_;
  Deadline deadline_ = kNoDeadline;
  bool armed_ = false;
  bool expired_ = false;
};

}  // namespace rg::client
