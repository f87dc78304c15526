// SuspectNodeDetector: which nodes look dead from their Lease in kube-node-lease, before the node
// lifecycle controller marks them NotReady -- and safely when that signal lies. Pure: it is told
// what the operator observed and when (its own monotonic clock, never the kubelet's or the API
// server's timestamps), and answers for a given time; the NodeLeaseMonitor feeds it from the
// informers. Also keeps when the operator observed each node turn NotReady, so that the NotReady
// grace is measured on the same clock.
//
// A node is suspect at `now` when all hold:
//  (a) its Lease's renewTime has not been observed to change for the grace, counted from the
//      latest of: the last observed change (or first sight), the last observed status heartbeat
//      of its Node, the time the Lease informer last (re)listed or the operator gained
//      leadership (`observing_since`), and the time the observation pipeline last became live;
//  (b) the pipeline is live now, and has been since that silence began: a majority of the other
//      lease-holding nodes have had a renewal observed within the liveness window (a bit more
//      than one renew interval). An API server outage, a stalled watch or a slow operator
//      stops every renewal at once: nobody can then be suspect, and once renewals flow again
//      each node's silence counts from that moment, so a live node that simply has not reached
//      its next renewal yet is never judged;
//  (c) it has both a Node and a Lease: Leases without a Node are ignored, a Node without a Lease
//      (an old kubelet) is never suspect.
// A node that was suspect keeps its `suspected_at` until its Lease renews, its status heartbeat
// advances or one of its pods is seen turn Ready (proof_of_life), even while (b) does not hold, for
// the NotReady grace (see NodeHealth).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rg::op {

struct SuspectNodeConfig {
  /// How long a Lease may go unrenewed (one missed 10 s renewal, its jitter, and API latency).
  std::chrono::milliseconds grace{std::chrono::seconds(24)};
  /// A node counts as renewing when a renewal was observed this recently: more than the renew
  /// interval (10 s, up to 4% jitter), less than the grace minus the interval.
  std::chrono::milliseconds liveness_window{std::chrono::seconds(12)};
};

/// Why a node is suspect, for Events and logs.
struct LeaseEvidence {
  std::chrono::milliseconds silent_for{0};  ///< since the node's silence began to count
  std::size_t others_renewing = 0;          ///< other lease-holding nodes renewing in the window
  std::size_t others = 0;                   ///< other lease-holding nodes
};

/// One line for Events and logs: "node-2: no Lease renewal observed for 25s while 3 of 3 other
/// nodes renewed".
std::string describe_evidence(std::string_view node, const LeaseEvidence& evidence);

/// What the operator observed of one node, for the policy.
struct NodeHealth {
  using TimePoint = std::chrono::steady_clock::time_point;
  bool lease_expired = false;  ///< suspect now
  /// When the node became suspect (kept after (b) stops holding, until it shows life).
  std::optional<TimePoint> suspected_at;
  /// When the operator observed its Ready condition stop being True (or first saw it so).
  std::optional<TimePoint> not_ready_since;
  LeaseEvidence evidence;  ///< meaningful when lease_expired
};

class SuspectNodeDetector {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::milliseconds;

  explicit SuspectNodeDetector(SuspectNodeConfig config);

  const SuspectNodeConfig& config() const { return config_; }

  /// The Lease of node `name` was seen (listed, added or updated) holding `renew_time`. Returns the
  /// gap since the previous observed renewal when the renewTime changed after one.
  std::optional<Duration> lease_seen(std::string_view name, std::string_view renew_time,
                                     TimePoint now);
  void lease_deleted(std::string_view name, TimePoint now);

  /// The Node was seen. `ready`: its Ready condition is True. `heartbeat`: that condition's
  /// lastHeartbeatTime; a change of it while the status is not Unknown (Unknown is the node
  /// lifecycle controller's, not the kubelet's) proves the node alive.
  void node_seen(std::string_view name, bool ready, std::string_view heartbeat,
                 std::string_view ready_status, TimePoint now);
  void node_deleted(std::string_view name, TimePoint now);
  /// A pod on the node was seen turn Ready (only its kubelet writes Ready=True, e.g. putting
  /// back a status someone else set to False): the node is alive, as after a heartbeat.
  void proof_of_life(std::string_view name, TimePoint now);

  /// The Lease informer (re)listed, or the operator gained leadership: nobody's silence counts
  /// from before `now`.
  void observing_from(TimePoint now);

  /// The node's standing at `now` (never earlier than the last call's time).
  NodeHealth health(std::string_view name, TimePoint now);

  /// The suspect nodes at `now`, sorted by name.
  std::vector<std::string> suspects(TimePoint now);

  /// Whether renewals from a majority of the lease-holding nodes are being observed at `now`.
  bool pipeline_live(TimePoint now);

 private:
  struct Node {
    bool has_node = false;
    bool has_lease = false;
    std::string renew_time;
    std::string heartbeat;
    std::optional<TimePoint> last_renewal;  ///< a renewTime change observed
    TimePoint alive_at{};                   ///< last proof of life: first sight, renewal, heartbeat
    std::optional<TimePoint> suspected_at;
    std::optional<TimePoint> not_ready_since;
  };

  // Moves the liveness state and the renewal window to `now`: the pipeline stopped being live at
  // live_until_ (recomputed first when renewals since may have moved it).
  void advance(TimePoint now);
  // Recomputes live_until_ after a change of membership at `now` (O(nodes)).
  void membership_or_renewal_changed(TimePoint now);
  // A renewal at `now`: while the pipeline is live a renewal can only move live_until_ later, so
  // the O(nodes) recomputation waits until advance() needs the value (5,000 nodes renew ~500
  // times a second); otherwise it may make the pipeline live now, so it is done at once.
  void renewed(TimePoint now);
  bool holds_lease(const Node& n) const { return n.has_node && n.has_lease; }
  // Whether `n`'s last renewal is inside the liveness window as of the last advance().
  bool in_window(const Node& n) const { return n.last_renewal && *n.last_renewal >= window_start_; }
  // Keeps holders_ and renewing_ after `n`'s has_node or has_lease changed from `was_holder`.
  void holder_changed(const Node& n, bool was_holder);
  std::optional<TimePoint> suspect_from(const Node& n) const;
  LeaseEvidence evidence_for(const Node& n, TimePoint now) const;
  Node& node(std::string_view name);

  SuspectNodeConfig config_;
  std::map<std::string, Node, std::less<>> nodes_;
  std::optional<TimePoint> observing_since_;
  std::optional<TimePoint> live_since_;  ///< the pipeline has been live continuously since
  std::optional<TimePoint> live_until_;  ///< ... and stays live until, unless renewals arrive
  bool live_until_stale_ = false;        ///< renewals came since live_until_ was computed
  std::vector<TimePoint> renewals_;      ///< scratch for membership_or_renewal_changed
  // The evidence's counts without a pass over every node: each renewal in observed order, and
  // how many lease holders there are and how many renewed in the liveness window. An entry is
  // current while its node's last_renewal is still its time.
  std::deque<std::pair<TimePoint, std::string>> window_;
  TimePoint window_start_{};  ///< the window's start as of the last advance()
  std::size_t holders_ = 0;
  std::size_t renewing_ = 0;  ///< holders whose last renewal is in the window
};

}  // namespace rg::op
