// Which nodes should carry replica-guard's taint `replica-guard.io/suspect:NoSchedule`
// (--taint-suspect-nodes), and the JSON patch that adds or removes it. Pure: the
// SuspectNodeTainter feeds it from the caches and the NodeLeaseMonitor and does the I/O.
//
// Rules (plan_suspect_taints):
//  - a node carries the taint only while it is suspect, the flag is on and surges are not
//    suppressed (--max-unhealthy-node-fraction: a partition is likelier than dead nodes);
//  - every other tainted node loses it: the node renewed its Lease, the flag is off (a previous
//    run's stale taint), surges are suppressed. Warm-up needs no rule of its own: the detector
//    reports no suspect before a full grace of observation (start, relist, leadership), so the
//    first pass of a term removes every stale taint;
//  - a deleted node takes its taint with it: nothing to do.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/node.hpp"

namespace rg::op {

inline constexpr std::string_view kSuspectTaintKey = "replica-guard.io/suspect";
inline constexpr std::string_view kSuspectTaintEffect = "NoSchedule";

struct TaintPolicy {
  bool enabled = false;            ///< --taint-suspect-nodes
  bool surges_suppressed = false;  ///< more unhealthy nodes than --max-unhealthy-node-fraction
};

/// One node as the caches and the detector see it.
struct NodeTaintFacts {
  std::string name;
  bool suspect = false;
  bool tainted = false;  ///< carries kSuspectTaintKey (any effect)
};

struct TaintChange {
  std::string node;
  bool add = false;  ///< false: remove
  bool operator==(const TaintChange&) const = default;
};

/// The taints to add and remove, in the order of `nodes`.
std::vector<TaintChange> plan_suspect_taints(const std::vector<NodeTaintFacts>& nodes,
                                             TaintPolicy policy);

/// Whether the node carries replica-guard's taint.
bool has_suspect_taint(const client::Node& node);

/// The JSON patch (RFC 6902) that makes `node` (its JSON as the API server returned it) carry
/// replica-guard's taint (`add`) or not, keeping every other taint exactly as it is; guarded by a
/// `test` of metadata.resourceVersion, so a taint another controller (the node lifecycle
/// controller's `unreachable`) added after that read fails the patch instead of being dropped.
/// `time_added` is the RFC 3339 time for a new taint. std::nullopt: nothing to change.
std::optional<boost::json::array> suspect_taint_patch(const boost::json::value& node, bool add,
                                                      std::string_view time_added);

}  // namespace rg::op
