// The token bucket's arithmetic and its awaitable wait.
#include "client/rest/token_bucket.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace rg::client {

TokenBucket::TokenBucket(double qps, int burst, Now now)
    : qps_(qps), burst_(std::max(burst, 1)), now_(std::move(now)), tokens_(burst_), last_(now_()) {}

void TokenBucket::refill() {
  const auto now = now_();
  const std::chrono::duration<double> elapsed = now - last_;
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed.count() * qps_);
}

bool TokenBucket::try_accept() {
  if (!enabled()) return true;
  std::lock_guard lock(mutex_);
  refill();
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

TokenBucket::Clock::duration TokenBucket::reserve() {
  if (!enabled()) return Clock::duration::zero();
  std::lock_guard lock(mutex_);
  refill();
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

boost::asio::awaitable<void> TokenBucket::acquire() {
  const auto wait = reserve();
  if (wait <= Clock::duration::zero()) co_return;
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, wait);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

}  // namespace rg::client
