// RateLimitedTimedQueue (see rate_limited_queue.hpp).
#include "sim/cluster/rate_limited_queue.hpp"

#include <algorithm>

namespace rg::sim::cluster {

RateLimitedTimedQueue::RateLimitedTimedQueue(double qps, Clock::time_point now) : qps_(qps) {
  if (qps > 0) limiter_.emplace(qps, 1, now);
}

bool RateLimitedTimedQueue::try_accept(Clock::time_point now) {
  return limiter_ && limiter_->allow(now);  // qps 0: flowcontrol.NewFakeNeverRateLimiter
}

bool RateLimitedTimedQueue::add(const std::string& node, Clock::time_point now) {
  if (!set_.insert(node).second) return false;
  queue_.push_back({node, now});
  std::stable_sort(queue_.begin(), queue_.end(),
                   [](const Entry& a, const Entry& b) { return a.process_at < b.process_at; });
  return true;
}

bool RateLimitedTimedQueue::remove(const std::string& node) {
  std::erase_if(queue_, [&](const Entry& entry) { return entry.node == node; });
  return set_.erase(node) > 0;
}

void RateLimitedTimedQueue::try_process(Clock::time_point now,
                                        const std::function<bool(const std::string&)>& action) {
  while (!queue_.empty()) {
    if (!try_accept(now)) return;
    if (now < queue_.front().process_at) return;
    Entry head = queue_.front();
    queue_.erase(queue_.begin());
    if (!action(head.node)) {
      head.process_at = now + std::chrono::nanoseconds(1);
      queue_.push_back(std::move(head));
    }
  }
}

void RateLimitedTimedQueue::swap_limiter(double qps, Clock::time_point now) {
  if (qps_ == qps) return;
  std::optional<rate::Bucket<Clock>> next;
  if (qps > 0) {
    next.emplace(qps, 1, now);
    if (!try_accept(now)) next->allow(now);
  }
  qps_ = qps;
  limiter_ = next;
}

std::optional<RateLimitedTimedQueue::Clock::time_point> RateLimitedTimedQueue::next_attempt(
    Clock::time_point now) const {
  if (queue_.empty()) return std::nullopt;
  if (!limiter_) return std::nullopt;
  return std::max(limiter_->next_token(now), queue_.front().process_at);
}

}  // namespace rg::sim::cluster
