// wakeup_timer.cpp: WakeupTimer over boost::asio::steady_timer.
#include "workqueue/detail/wakeup_timer.hpp"

#include <boost/asio/steady_timer.hpp>

namespace rg::workqueue::detail {

struct WakeupTimer::Impl {
  explicit Impl(const boost::asio::any_io_executor& executor) : timer(executor) {}
  boost::asio::steady_timer timer;
};

WakeupTimer::WakeupTimer(const boost::asio::any_io_executor& executor)
    : impl_(std::make_unique<Impl>(executor)) {}

WakeupTimer::~WakeupTimer() = default;

void WakeupTimer::arm(Duration delay, std::function<void()> on_fire) {
  impl_->timer.expires_after(delay);
  impl_->timer.async_wait([on_fire = std::move(on_fire)](boost::system::error_code ec) {
    if (!ec) on_fire();
  });
}

void WakeupTimer::cancel() { impl_->timer.cancel(); }

}  // namespace rg::workqueue::detail
