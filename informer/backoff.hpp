// BackoffPolicy: the Reflector's retry delays, as client-go's ExponentialBackoffManager
// (800 ms doubling to a 30 s base, plus up to 100 % jitter on top, back to 800 ms after 2 minutes
// without a failure). The clock and the random source are injected so tests are exact.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

namespace rg::informer {

struct BackoffOptions {
  std::chrono::steady_clock::duration initial = std::chrono::milliseconds(800);
  std::chrono::steady_clock::duration max = std::chrono::seconds(30);  ///< cap of the base delay
  double factor = 2.0;
  double jitter = 1.0;  ///< each delay is base * (1 + jitter * random), random in [0, 1)
  /// Quiet time (no failure) after which the base delay is back to `initial`.
  std::chrono::steady_clock::duration reset_after = std::chrono::minutes(2);
};

class BackoffPolicy {
 public:
  using Clock = std::chrono::steady_clock;
  using Options = BackoffOptions;

  /// `random01` returns a number in [0, 1). Throws std::invalid_argument for options that make
  /// no sense (non-positive initial, max < initial, factor < 1, negative jitter).
  BackoffPolicy(Options options, std::function<Clock::time_point()> now,
                std::function<double()> random01);

  /// Real clock, std::random_device-seeded random source.
  explicit BackoffPolicy(Options options = {});

  /// The delay before the next attempt; each call counts as one failure.
  Clock::duration next();

  /// Forget past failures (the next delay is the initial one again).
  void reset();

  Clock::time_point now() const { return now_(); }
  double random01() const { return random01_(); }
  const Options& options() const { return options_; }

 private:
  Options options_;
  std::function<Clock::time_point()> now_;
  std::function<double()> random01_;
  Clock::duration base_;
  std::optional<Clock::time_point> last_failure_;
};

}  // namespace rg::informer
