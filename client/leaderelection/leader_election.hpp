// Leader election through a coordination.k8s.io/v1 Lease, with client-go's algorithm
// (tools/leaderelection): a candidate takes the lease when it is free or expired, the leader
// renews it every retry period, and a leader that has not renewed within the renew deadline stops
// leading at once. The lease store is an interface (LeaseLock; RestLeaseLock in lease_lock.hpp
// is the API server's) so the algorithm is tested without a cluster.
//
//   client::RestLeaseLock lock(rest_client, "my-namespace", "my-operator");
//   client::LeaderElector elector(lock, {.identity = hostname + "_" + random_suffix});
//   co_await elector.run([&]() -> asio::awaitable<void> {  // returns when cancelled
//     co_await run_controllers();  // cancelled when leadership is lost, then run again on
//     regaining it
//   });
//   ... if (elector.is_leader()) write();  // before every write, from any thread
//
// The lock and the elector must outlive run(); cancel run() (its coroutine's cancellation slot)
// to stop: the lease is released on the way out unless release_on_cancel is false.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

namespace rg::client {

/// The fields of a Lease that leader election reads and writes.
struct LeaseRecord {
  std::string holder_identity;
  std::int32_t lease_duration_seconds = 0;
  std::string acquire_time;  ///< RFC 3339 with microseconds (MicroTime)
  std::string renew_time;
  std::int32_t lease_transitions = 0;
  std::string resource_version;  ///< of the stored Lease; empty when creating
};

/// Raised by LeaseLock::update when the stored Lease changed since it was read (409).
struct LeaseConflict : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Raised by LeaseLock::create when the Lease exists already (409 AlreadyExists): another
/// candidate created it since it was read.
struct LeaseAlreadyExists : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  /// The current record, or std::nullopt when the Lease does not exist.
  virtual boost::asio::awaitable<std::optional<LeaseRecord>> get() = 0;
  /// Creates the Lease; throws LeaseAlreadyExists when it exists, other errors on failure.
  virtual boost::asio::awaitable<void> create(const LeaseRecord& record) = 0;
  /// Replaces it, guarded by record.resource_version; throws LeaseConflict when stale.
  virtual boost::asio::awaitable<void> update(const LeaseRecord& record) = 0;
  /// "<namespace>/<name>", for logs.
  virtual std::string describe() const = 0;
};

struct LeaderElectionConfig {
  std::string identity;  ///< unique per process: hostname + "_" + a random suffix
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  bool release_on_cancel = true;
};

class LeaderElector {
 public:
  /// Throws std::invalid_argument unless lease_duration > renew_deadline > retry_period * 1.2.
  LeaderElector(LeaseLock& lock, LeaderElectionConfig config);

  /// Campaigns until cancelled: waits to acquire the lease, then runs `lead` while renewing it.
  /// When a renewal misses the deadline, leadership is lost: is_leader() turns false at once,
  /// `lead` is cancelled and awaited, and the candidate campaigns again. On cancellation the
  /// lease is released (if held and release_on_cancel) before returning.
  boost::asio::awaitable<void> run(std::function<boost::asio::awaitable<void>()> lead);

  /// True only while the lease is held and was renewed within the renew deadline. Writers check
  /// it before every write. Safe from any thread.
  bool is_leader() const;
  const std::string& identity() const { return config_.identity; }
  /// The holder last seen in the Lease (may be another process), for logs.
  std::string observed_leader() const;

 private:
  boost::asio::awaitable<bool> try_acquire_or_renew();
  boost::asio::awaitable<void> release();
  boost::asio::awaitable<void> renew_until_lost();

  LeaseLock& lock_;
  LeaderElectionConfig config_;
  std::optional<LeaseRecord> observed_;
  std::chrono::steady_clock::time_point observed_at_{};
  std::atomic<std::int64_t> leader_until_ns_{0};  ///< steady-clock deadline of leadership
  mutable std::mutex observed_mutex_;
  std::string observed_holder_;
};

}  // namespace rg::client
