// The suspect-node rules (see suspect_node_detector.hpp).
#include "operator/suspect_node_detector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace rg::op {

std::string describe_evidence(std::string_view node, const LeaseEvidence& e) {
  return fmt::format("{}: no Lease renewal observed for {}s while {} of {} other nodes renewed",
                     node, std::chrono::duration_cast<std::chrono::seconds>(e.silent_for).count(),
                     e.others_renewing, e.others);
}

SuspectNodeDetector::SuspectNodeDetector(SuspectNodeConfig config) : config_(config) {}

SuspectNodeDetector::Node& SuspectNodeDetector::node(std::string_view name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) it = nodes_.emplace(std::string(name), Node{}).first;
  return it->second;
}

void SuspectNodeDetector::advance(TimePoint now) {
  if (now - config_.liveness_window > window_start_) {
    window_start_ = now - config_.liveness_window;
    while (!window_.empty() && window_.front().first < window_start_) {
      const auto it = nodes_.find(window_.front().second);
      if (it != nodes_.end() && it->second.last_renewal == window_.front().first &&
          holds_lease(it->second))
        --renewing_;
      window_.pop_front();
    }
  }
  if (live_since_ && (!live_until_ || now > *live_until_)) {
    if (live_until_stale_) {
      membership_or_renewal_changed(now);  // keeps live_since_ when renewals kept it live
    } else {
      live_since_.reset();
    }
  }
}

void SuspectNodeDetector::holder_changed(const Node& n, bool was_holder) {
  if (holds_lease(n) == was_holder) return;
  const std::ptrdiff_t delta = was_holder ? -1 : 1;
  holders_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(holders_) + delta);
  if (in_window(n))
    renewing_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(renewing_) + delta);
}

void SuspectNodeDetector::renewed(TimePoint now) {
  if (live_since_ && live_until_ && now <= *live_until_) {
    live_until_stale_ = true;
  } else {
    membership_or_renewal_changed(now);
  }
}

// With N lease-holding nodes, a node has N - 1 others and a majority of them is
// (N - 1) / 2 + 1. The pipeline stays live while that many nodes have a renewal in the window:
// until the k-th most recent renewal leaves it. (The node being judged is silent for longer than
// the window, so counting it among the N changes nothing.)
void SuspectNodeDetector::membership_or_renewal_changed(TimePoint now) {
  std::vector<TimePoint>& renewals = renewals_;  // kept: no allocation per renewal
  renewals.clear();
  std::size_t holders = 0;
  for (const auto& [name, n] : nodes_) {
    if (!holds_lease(n)) continue;
    ++holders;
    if (n.last_renewal) renewals.push_back(*n.last_renewal);
  }
  const std::size_t majority = holders < 2 ? 0 : (holders - 1) / 2 + 1;
  live_until_.reset();
  live_until_stale_ = false;
  if (majority > 0 && renewals.size() >= majority) {
    std::nth_element(renewals.begin(), renewals.begin() + static_cast<long>(majority - 1),
                     renewals.end(), std::greater<>());
    live_until_ = renewals[majority - 1] + config_.liveness_window;
  }
  if (!live_until_ || now > *live_until_) {
    live_since_.reset();
  } else if (!live_since_) {
    live_since_ = now;
  }
}

std::optional<SuspectNodeDetector::TimePoint> SuspectNodeDetector::suspect_from(
    const Node& n) const {
  if (!holds_lease(n) || !observing_since_ || !live_since_) return std::nullopt;
  return std::max({n.alive_at, *observing_since_, *live_since_}) + config_.grace;
}

LeaseEvidence SuspectNodeDetector::evidence_for(const Node& n, TimePoint now) const {
  LeaseEvidence e;
  if (const auto from = suspect_from(n))
    e.silent_for = std::chrono::duration_cast<Duration>(now - (*from - config_.grace));
  const bool counted = holds_lease(n);
  e.others = holders_ - (counted ? 1 : 0);
  e.others_renewing = renewing_ - (counted && in_window(n) ? 1 : 0);
  return e;
}

std::optional<SuspectNodeDetector::Duration> SuspectNodeDetector::lease_seen(
    std::string_view name, std::string_view renew_time, TimePoint now) {
  advance(now);
  Node& n = node(name);
  if (!n.has_lease) {  // first sight: its silence counts from here
    const bool was_holder = holds_lease(n);
    n.has_lease = true;
    n.renew_time = renew_time;
    n.alive_at = std::max(n.alive_at, now);
    holder_changed(n, was_holder);
    membership_or_renewal_changed(now);
    return std::nullopt;
  }
  if (n.renew_time == renew_time) return std::nullopt;  // a relist, or another field changed
  std::optional<Duration> gap;
  if (n.last_renewal) gap = std::chrono::duration_cast<Duration>(now - *n.last_renewal);
  if (holds_lease(n) && !in_window(n)) ++renewing_;
  if (n.last_renewal != now) window_.emplace_back(now, name);
  n.renew_time = renew_time;
  n.last_renewal = now;
  n.alive_at = now;
  n.suspected_at.reset();
  renewed(now);
  return gap;
}

void SuspectNodeDetector::lease_deleted(std::string_view name, TimePoint now) {
  advance(now);
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  Node& n = it->second;
  const bool was_holder = holds_lease(n);
  n.has_lease = false;
  holder_changed(n, was_holder);
  n.renew_time.clear();
  n.last_renewal.reset();
  n.suspected_at.reset();
  if (!n.has_node) nodes_.erase(it);
  membership_or_renewal_changed(now);
}

void SuspectNodeDetector::node_seen(std::string_view name, bool ready, std::string_view heartbeat,
                                    std::string_view ready_status, TimePoint now) {
  advance(now);
  Node& n = node(name);
  const bool first = !n.has_node;
  if (first) {
    const bool was_holder = holds_lease(n);
    n.has_node = true;
    holder_changed(n, was_holder);
    n.alive_at = std::max(n.alive_at, now);
  } else if (n.heartbeat != heartbeat && ready_status != "Unknown") {
    n.alive_at = now;  // the kubelet posted its status
    n.suspected_at.reset();
  }
  n.heartbeat = heartbeat;
  if (ready) {
    n.not_ready_since.reset();
  } else if (!n.not_ready_since) {
    n.not_ready_since = now;
  }
  if (first) membership_or_renewal_changed(now);
}

void SuspectNodeDetector::node_deleted(std::string_view name, TimePoint now) {
  advance(now);
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  Node& n = it->second;
  const bool was_holder = holds_lease(n);
  n.has_node = false;
  holder_changed(n, was_holder);
  n.heartbeat.clear();
  n.not_ready_since.reset();
  n.suspected_at.reset();
  if (!n.has_lease) nodes_.erase(it);
  membership_or_renewal_changed(now);
}

void SuspectNodeDetector::proof_of_life(std::string_view name, TimePoint now) {
  advance(now);
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  it->second.alive_at = std::max(it->second.alive_at, now);
  it->second.suspected_at.reset();
}

void SuspectNodeDetector::observing_from(TimePoint now) {
  advance(now);
  observing_since_ = now;
}

NodeHealth SuspectNodeDetector::health(std::string_view name, TimePoint now) {
  advance(now);
  NodeHealth out;
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return out;
  Node& n = it->second;
  const auto from = suspect_from(n);
  out.lease_expired = from && now >= *from;
  if (out.lease_expired) {
    if (!n.suspected_at || *from < *n.suspected_at) n.suspected_at = *from;
    out.evidence = evidence_for(n, now);
  }
  out.suspected_at = n.suspected_at;
  out.not_ready_since = n.not_ready_since;
  return out;
}

std::vector<std::string> SuspectNodeDetector::suspects(TimePoint now) {
  std::vector<std::string> out;
  for (const auto& [name, n] : nodes_) {
    if (health(name, now).lease_expired) out.push_back(name);
  }
  return out;  // std::map: sorted by name
}

bool SuspectNodeDetector::pipeline_live(TimePoint now) {
  advance(now);
  return live_since_.has_value();
}

}  // namespace rg::op
