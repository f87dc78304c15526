// Lease-based leader election (see leader_election.hpp).
#include "client/leaderelection/leader_election.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <random>

#include "client/model/time.hpp"
#include "client/transport/cancellation.hpp"

namespace rg::client {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

namespace {

asio::awaitable<void> sleep_for(milliseconds delay) {
  asio::steady_timer timer(co_await asio::this_coro::executor, delay);
  co_await timer.async_wait(asio::use_awaitable);
}

// client-go's wait.Jitter(d, 1.2): uniformly in [d, 2.2 d).
milliseconds jittered(milliseconds base) {
  thread_local std::minstd_rand random{std::random_device{}()};
  std::uniform_real_distribution<double> factor(0.0, 1.2);
  return base + milliseconds(
                    static_cast<std::int64_t>(static_cast<double>(base.count()) * factor(random)));
}

std::int64_t to_ns(Steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

LeaderElector::LeaderElector(LeaseLock& lock, LeaderElectionConfig config)
    : lock_(lock), config_(std::move(config)) {
  if (config_.identity.empty()) throw std::invalid_argument("leader election needs an identity");
  if (config_.lease_duration <= config_.renew_deadline) {
    throw std::invalid_argument(
        "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  }
  if (config_.renew_deadline.count() <= config_.retry_period.count() * 12 / 10) {
    throw std::invalid_argument(
        "--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period");
  }
}

bool LeaderElector::is_leader() const { return to_ns(Steady::now()) < leader_until_ns_.load(); }

std::string LeaderElector::observed_leader() const {
  std::lock_guard lock(observed_mutex_);
  return observed_holder_;
}

asio::awaitable<bool> LeaderElector::try_acquire_or_renew() {
  const auto now = std::chrono::system_clock::now();
  LeaseRecord desired{
      config_.identity,
      static_cast<std::int32_t>(
          std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count()),
      client::format_micro_time(now),
      client::format_micro_time(now),
      0,
      ""};
  std::optional<LeaseRecord> current;
  try {
    current = co_await lock_.get();
    if (!current) {
      try {
        co_await lock_.create(desired);
        observed_ = desired;
        observed_at_ = Steady::now();
        co_return true;
      } catch (const LeaseAlreadyExists&) {
        // Another candidate created it first: the normal race of candidates starting together.
        // Read what it wrote and go on as with any existing Lease.
        spdlog::debug("leader election: lease {} was just created by another candidate",
                      lock_.describe());
      }
      current = co_await lock_.get();
      if (!current) co_return false;  // and deleted again already: try at the next retry
    }
  } catch (const std::exception& e) {
    // Only our own cancellation ends the election; a request that timed out (its transport
    // error carries operation_aborted too) is a failed attempt like any other.
    if (client::is_cancellation(std::current_exception())) throw;
    spdlog::warn("leader election: cannot read or create lease {}: {}", lock_.describe(), e.what());
    co_return false;
  }
  // The record changed since we last looked: restart our view of its expiry from now (local clock
  // only: the holder's clock may differ from ours).
  if (!observed_ || observed_->holder_identity != current->holder_identity ||
      observed_->renew_time != current->renew_time ||
      observed_->resource_version != current->resource_version) {
    observed_ = current;
    observed_at_ = Steady::now();
  }
  {
    std::lock_guard lock(observed_mutex_);
    observed_holder_ = current->holder_identity;
  }
  const bool held_by_other =
      !current->holder_identity.empty() && current->holder_identity != config_.identity;
  const auto other_duration = std::chrono::seconds(current->lease_duration_seconds);
  if (held_by_other && observed_at_ + other_duration > Steady::now()) co_return false;

  if (current->holder_identity == config_.identity) {
    desired.acquire_time = current->acquire_time;
    desired.lease_transitions = current->lease_transitions;
  } else {
    desired.lease_transitions = current->lease_transitions + 1;
  }
  desired.resource_version = current->resource_version;
  try {
    co_await lock_.update(desired);
  } catch (const std::exception& e) {
    if (client::is_cancellation(std::current_exception())) throw;
    spdlog::warn("leader election: cannot update lease {}: {}", lock_.describe(), e.what());
    co_return false;
  }
  observed_ = desired;
  observed_at_ = Steady::now();
  co_return true;
}

asio::awaitable<void> LeaderElector::renew_until_lost() {
  for (;;) {
    co_await sleep_for(config_.retry_period);
    const auto started = Steady::now();
    const auto deadline = Steady::time_point(std::chrono::nanoseconds(leader_until_ns_.load()));
    if (started >= deadline) break;
    // A renewal that hangs past the deadline counts as failed.
    asio::steady_timer give_up(co_await asio::this_coro::executor, deadline);
    auto attempt = try_acquire_or_renew();
    auto timeout = give_up.async_wait(asio::use_awaitable);
    auto result = co_await (std::move(attempt) || std::move(timeout));
    if (result.index() == 0 && std::get<0>(result)) {
      leader_until_ns_ = to_ns(started + config_.renew_deadline);
    }
  }
  leader_until_ns_ = 0;
  spdlog::error("leader election: failed to renew lease {} within {} ms; stopped leading",
                lock_.describe(), config_.renew_deadline.count());
}

asio::awaitable<void> LeaderElector::release() {
  if (!observed_ || observed_->holder_identity != config_.identity) co_return;
  LeaseRecord released = *observed_;
  const auto now = client::format_micro_time(std::chrono::system_clock::now());
  released.holder_identity.clear();
  released.lease_duration_seconds = 1;
  released.acquire_time = now;
  released.renew_time = now;
  try {
    const std::optional<LeaseRecord> current = co_await lock_.get();
    if (!current || current->holder_identity != config_.identity) co_return;
    released.resource_version = current->resource_version;
    co_await lock_.update(released);
    spdlog::info("leader election: released lease {}", lock_.describe());
  } catch (const std::exception& e) {
    spdlog::warn("leader election: could not release lease {}: {}", lock_.describe(), e.what());
  }
}

asio::awaitable<void> LeaderElector::run(std::function<asio::awaitable<void>()> lead) {
  try {
    for (;;) {
      for (;;) {
        const auto started = Steady::now();
        if (co_await try_acquire_or_renew()) {
          leader_until_ns_ = to_ns(started + config_.renew_deadline);
          break;
        }
        co_await sleep_for(jittered(config_.retry_period));
      }
      spdlog::info("leader election: {} acquired lease {}", config_.identity, lock_.describe());
      {
        std::lock_guard lock(observed_mutex_);
        observed_holder_ = config_.identity;
      }
      auto leading = lead();
      auto renewing = renew_until_lost();
      co_await (std::move(leading) || std::move(renewing));
      leader_until_ns_ = 0;
    }
  } catch (...) {
    leader_until_ns_ = 0;
    if (!client::is_cancellation(std::current_exception())) throw;
  }
  // Cancelled: release the lease so a standby takes over at once, not after the lease expires.
  co_await asio::this_coro::reset_cancellation_state();
  co_await asio::this_coro::throw_if_cancelled(false);
  if (config_.release_on_cancel) co_await release();
}

}  // namespace rg::client
