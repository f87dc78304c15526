// KubeletControl: what happens to the simulated kubelets from outside the cluster -- a kubelet
// that dies (no API write: its process is gone, nothing in the API says so) or comes back, a
// kubelet whose Lease renewals and node status writes are slow -- and what each one last did
// (its last Lease renewal), for tests and the /sim/kubelets admin endpoint. Thread-safe: the
// admin endpoint calls it from the server's threads, the kubelets read it on the cluster's
// strand, where every change is announced to them.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace rg::sim {

/// A moment on both clocks: wall (RFC 3339) and monotonic (steady_clock, which is
/// CLOCK_MONOTONIC on Linux, the clock of Python's time.monotonic()).
struct Instant {
  std::chrono::system_clock::time_point wall;
  std::chrono::steady_clock::time_point monotonic;

  static Instant now();
};

/// One node's kubelet as GET /sim/kubelets shows it.
struct KubeletState {
  std::string node;
  bool alive = true;                    ///< false from stop_kubelet() to start_kubelet()
  bool stopped_by_label = false;        ///< the node carries sim.replica-guard.io/kubelet=stopped
  std::optional<Instant> stopped_at;    ///< when stop_kubelet() stopped it
  std::optional<Instant> last_renewal;  ///< when its last Lease renewal reached the store
  std::string last_renew_time;          ///< that renewal's spec.renewTime
  std::chrono::milliseconds renewal_delay{0};  ///< added to every renewal and status write
  std::uint64_t incarnation = 0;  ///< counts start_kubelet() calls: each starts a new process
};

class KubeletControl {
 public:
  /// `strand`: where the kubelets run; changes are announced there.
  explicit KubeletControl(boost::asio::any_io_executor strand);

  /// Stops `node`'s kubelet (no more Lease renewals, node status or pod updates) and records
  /// when; a stopped kubelet stays stopped (stopped_at unchanged).
  KubeletState stop(const std::string& node);
  /// Starts it again; it begins afresh (renews its Lease and posts status at once).
  KubeletState start(const std::string& node);
  /// Delays each of its Lease renewals and node status writes by `delay` (0: none).
  KubeletState delay(const std::string& node, std::chrono::milliseconds delay);
  /// The state of `node`'s kubelet (a node never touched: alive, nothing renewed yet).
  KubeletState state(const std::string& node) const;

  /// For the kubelets (on the strand): whether `node`'s kubelet runs, its renewal delay, and
  /// recording a renewal that reached the store.
  bool alive(const std::string& node) const;
  /// Changes with every start: a kubelet that sees another incarnation begins afresh, however
  /// briefly it was stopped.
  std::uint64_t incarnation(const std::string& node) const;
  std::chrono::milliseconds renewal_delay(const std::string& node) const;
  void renewed(const std::string& node, const std::string& renew_time);
  /// Forgets a deleted node.
  void forget(const std::string& node);

  /// The kubelets' callback for a changed node (set on the strand; empty to clear). Called on
  /// the strand.
  void on_change(std::function<void(const std::string& node)> callback);

 private:
  void announce(const std::string& node);

  boost::asio::any_io_executor strand_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, KubeletState> states_;
  std::function<void(const std::string&)> on_change_;  // strand only
};

}  // namespace rg::sim
