// ReadWatchdog: one timer per body; it re-arms itself when the deadline moved later meanwhile.
#include "client/transport/read_watchdog.hpp"

#include "client/transport/connection.hpp"

namespace rg::client {

std::shared_ptr<ReadWatchdog> ReadWatchdog::create(Connection& connection) {
  return std::make_shared<ReadWatchdog>(connection, connection.stream().get_executor());
}

ReadWatchdog::ReadWatchdog(Connection& connection, const boost::asio::any_io_executor& executor)
    : timer_(executor), connection_(&connection) {}

void ReadWatchdog::set_deadline(Deadline deadline) {
  deadline_ = deadline;
  if (deadline == kNoDeadline || expired_ || connection_ == nullptr) return;
  if (!armed_ || deadline < timer_.expiry()) arm();
}

void ReadWatchdog::stop() {
  connection_ = nullptr;
  deadline_ = kNoDeadline;
  timer_.cancel();
  armed_ = false;
}

void ReadWatchdog::arm() {
  timer_.expires_at(deadline_);  // cancels a wait in progress: its handler sees the abort
  armed_ = true;
  auto on_expiry = [self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->fired();
  };
  timer_.async_wait(std::move(on_expiry));
}

void ReadWatchdog::fired() {
  armed_ = false;
  if (connection_ == nullptr || deadline_ == kNoDeadline) return;
  if (Deadline::clock::now() < deadline_) {  // moved later since the timer was armed
    arm();
    return;
  }
  expired_ = true;
  boost::system::error_code ignored;
  connection_->stream().tcp().socket().cancel(ignored);
}

}  // namespace rg::client
