// The client's token bucket over rate::Limiter, and its awaitable wait.
#include "client/rest/token_bucket.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace rg::client {

TokenBucket::TokenBucket(double qps, int burst, Now now) {
  if (qps > 0) limiter_.emplace(qps, std::max(burst, 1), std::move(now));
}

TokenBucket::Clock::duration TokenBucket::reserve() {
  return limiter_ ? limiter_->reserve() : Clock::duration::zero();
}

bool TokenBucket::try_accept() { return !limiter_ || limiter_->allow(); }

boost::asio::awaitable<void> TokenBucket::acquire() {
  const auto wait = reserve();
  if (wait <= Clock::duration::zero()) co_return;
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, wait);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

}  // namespace rg::client
