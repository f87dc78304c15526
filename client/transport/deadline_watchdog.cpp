// DeadlineWatchdog: one timer per connection; it re-arms itself when the deadline moved later
// meanwhile.
#include "client/transport/deadline_watchdog.hpp"

namespace rg::client {

DeadlineWatchdog::DeadlineWatchdog(boost::asio::ip::tcp::socket& socket)
    : timer_(socket.get_executor()), socket_(&socket) {}

void DeadlineWatchdog::set_deadline(Deadline deadline) {
  deadline_ = deadline;
  if (deadline == kNoDeadline) {
    // Idle in the pool, or a watch: a timer left waiting would hold its io_context's run() (a
    // process's shutdown) for up to the last request's timeout.
    if (armed_) timer_.cancel();
    armed_ = false;
    return;
  }
  if (expired_ || socket_ == nullptr) return;
  if (!armed_ || deadline < timer_.expiry()) arm();
}

void DeadlineWatchdog::stop() {
  socket_ = nullptr;
  deadline_ = kNoDeadline;
  if (armed_) timer_.cancel();
  armed_ = false;
}

void DeadlineWatchdog::arm() {
  timer_.expires_at(deadline_);  // cancels a wait in progress: its handler sees the abort
  armed_ = true;
  auto on_expiry = [self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->fired();
  };
  timer_.async_wait(std::move(on_expiry));
}

void DeadlineWatchdog::fired() {
  armed_ = false;
  if (socket_ == nullptr || deadline_ == kNoDeadline) return;
  if (Deadline::clock::now() < deadline_) {  // moved later since the timer was armed
    arm();
    return;
  }
  expired_ = true;
  boost::system::error_code ignored;
  socket_->close(ignored);  // ends the operation in progress (and a connect's next attempt)
}

}  // namespace rg::client
