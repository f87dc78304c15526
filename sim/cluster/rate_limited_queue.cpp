// RateLimitedTimedQueue and TokenBucket (see rate_limited_queue.hpp).
#include "sim/cluster/rate_limited_queue.hpp"

#include <algorithm>

namespace rg::sim::cluster {

TokenBucket::TokenBucket(double qps, Clock::time_point now) : qps_(qps), last_(now) {}

double TokenBucket::tokens_at(Clock::time_point now) const {
  if (qps_ <= 0) return 0;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  return std::min(1.0, tokens_ + std::max(0.0, elapsed) * qps_);
}

bool TokenBucket::try_accept(Clock::time_point now) {
  if (qps_ <= 0) return false;  // flowcontrol.NewFakeNeverRateLimiter
  const double tokens = tokens_at(now);
  tokens_ = tokens;
  last_ = std::max(last_, now);
  if (tokens < 1) return false;
  tokens_ = tokens - 1;
  return true;
}

std::optional<TokenBucket::Clock::time_point> TokenBucket::next_token(Clock::time_point now) const {
  if (qps_ <= 0) return std::nullopt;
  const double missing = 1 - tokens_at(now);
  if (missing <= 0) return now;
  return now +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(missing / qps_));
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
    if (!limiter_.try_accept(now)) return;
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
  if (limiter_.qps() == qps) return;
  TokenBucket next(qps, now);
  if (qps > 0 && !limiter_.try_accept(now)) next.try_accept(now);
  limiter_ = next;
}

std::optional<RateLimitedTimedQueue::Clock::time_point> RateLimitedTimedQueue::next_attempt(
    Clock::time_point now) const {
  if (queue_.empty()) return std::nullopt;
  auto token = limiter_.next_token(now);
  if (!token) return std::nullopt;
  return std::max(*token, queue_.front().process_at);
}

}  // namespace rg::sim::cluster
