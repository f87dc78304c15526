// wakeup_timer.hpp: the one Asio steady_timer behind a DelayingQueue, kept out of the templates
// so steady_timer's headers are compiled once. Not synchronised: the queue calls it under its lock.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "workqueue/clock.hpp"

namespace rg::workqueue::detail {

class WakeupTimer {
 public:
  explicit WakeupTimer(const boost::asio::any_io_executor& executor);
  ~WakeupTimer();
  WakeupTimer(const WakeupTimer&) = delete;
  WakeupTimer& operator=(const WakeupTimer&) = delete;

  // Calls `on_fire` on the executor after `delay`, replacing any earlier arming.
  void arm(Duration delay, std::function<void()> on_fire);
  // Drops the pending arming, if any.
  void cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::workqueue::detail
