// WorkLoop (see work_loop.hpp).
#include "sim/cluster/work_loop.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <vector>

namespace rg::sim::cluster {

WorkLoop::WorkLoop(const boost::asio::any_io_executor& executor, std::string name,
                   Clock::duration retry_delay)
    : name_(std::move(name)), retry_delay_(retry_delay), timer_(executor) {}

void WorkLoop::wake() {
  if (waiting_) timer_.cancel();
}

void WorkLoop::add(const std::string& key) {
  if (ready_.insert(key).second) wake();
}

void WorkLoop::add_at(const std::string& key, Clock::time_point when) {
  if (ready_.contains(key)) return;
  if (when <= Clock::now()) {
    add(key);
    return;
  }
  if (auto it = due_.find(key); it != due_.end()) {
    if (it->second <= when) return;
    auto range = scheduled_.equal_range(it->second);
    for (auto entry = range.first; entry != range.second; ++entry)
      if (entry->second == key) {
        scheduled_.erase(entry);
        break;
      }
  }
  due_[key] = when;
  const bool earliest = scheduled_.empty() || when < scheduled_.begin()->first;
  scheduled_.emplace(when, key);
  if (earliest) wake();
}

boost::asio::awaitable<void> WorkLoop::run(Sync sync) {
  for (;;) {
    const auto now = Clock::now();
    while (!scheduled_.empty() && scheduled_.begin()->first <= now) {
      ready_.insert(scheduled_.begin()->second);
      due_.erase(scheduled_.begin()->second);
      scheduled_.erase(scheduled_.begin());
    }
    if (next_ == batch_.size() && !ready_.empty()) {
      batch_.assign(ready_.begin(), ready_.end());
      ready_.clear();
      next_ = 0;
    }
    if (next_ < batch_.size()) {
      // A slice of the batch at a time, so that a burst (10,000 ReplicaSets to scale, 40,000
      // pods to place) does not hold the strand for seconds: the kubelets' Lease renewals, the
      // informers and the other controllers run between slices, as they would beside a real
      // controller.
      const auto slice_end = Clock::now() + kSlice;
      while (next_ < batch_.size()) {
        const std::string key = std::move(batch_[next_++]);
        try {
          sync(key);
        } catch (const std::exception& error) {
          spdlog::debug("sim cluster: {} sync of {} failed, retrying: {}", name_, key,
                        error.what());
          add_at(key, Clock::now() + retry_delay_);
        }
        if (Clock::now() >= slice_end) break;
      }
      auto executor = co_await boost::asio::this_coro::executor;
      co_await boost::asio::post(executor, boost::asio::use_awaitable);
      continue;
    }
    timer_.expires_at(scheduled_.empty() ? Clock::time_point::max() : scheduled_.begin()->first);
    waiting_ = true;
    boost::system::error_code ignored;  // cancel() is how add() wakes us
    auto token = boost::asio::redirect_error(boost::asio::use_awaitable, ignored);
    co_await timer_.async_wait(token);
    waiting_ = false;
    auto state = co_await boost::asio::this_coro::cancellation_state;
    if (state.cancelled() != boost::asio::cancellation_type::none) co_return;
  }
}

}  // namespace rg::sim::cluster
