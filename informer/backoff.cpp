// BackoffPolicy (see backoff.hpp).
#include "informer/backoff.hpp"

#include <algorithm>
#include <memory>
#include <random>
#include <stdexcept>

namespace rg::informer {

namespace {
std::function<double()> default_random() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  return [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}
}  // namespace

BackoffPolicy::BackoffPolicy(Options options, std::function<Clock::time_point()> now,
                             std::function<double()> random01)
    : options_(options),
      now_(std::move(now)),
      random01_(std::move(random01)),
      base_(options.initial) {
  if (options_.initial <= Clock::duration::zero()) {
    throw std::invalid_argument("backoff: the initial delay must be positive");
  }
  if (options_.max < options_.initial) {
    throw std::invalid_argument("backoff: the maximum delay must not be below the initial delay");
  }
  if (options_.factor < 1.0) throw std::invalid_argument("backoff: the factor must be >= 1");
  if (options_.jitter < 0.0) throw std::invalid_argument("backoff: the jitter must be >= 0");
  if (!now_ || !random01_) throw std::invalid_argument("backoff: clock and random source needed");
}

BackoffPolicy::BackoffPolicy(Options options)
    : BackoffPolicy(options, &Clock::now, default_random()) {}

BackoffPolicy::Clock::duration BackoffPolicy::next() {
  const Clock::time_point now = now_();
  if (last_failure_ && now - *last_failure_ > options_.reset_after) base_ = options_.initial;
  last_failure_ = now;
  const Clock::duration delay = base_;
  const auto grown = std::chrono::duration_cast<Clock::duration>(base_ * options_.factor);
  base_ = std::min(grown, options_.max);
  const double random = std::clamp(random01_(), 0.0, 1.0);
  return delay + std::chrono::duration_cast<Clock::duration>(delay * (options_.jitter * random));
}

void BackoffPolicy::reset() {
  base_ = options_.initial;
  last_failure_.reset();
}

}  // namespace rg::informer
