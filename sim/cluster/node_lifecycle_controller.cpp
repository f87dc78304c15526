// NodeLifecycleController (see node_lifecycle_controller.hpp).
#include "sim/cluster/node_lifecycle_controller.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <algorithm>
#include <vector>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

constexpr std::string_view kNotReady = "node.kubernetes.io/not-ready";
constexpr std::string_view kUnreachable = "node.kubernetes.io/unreachable";
constexpr std::string_view kUnschedulable = "node.kubernetes.io/unschedulable";
constexpr std::string_view kNoSchedule = "NoSchedule";
constexpr std::string_view kNoExecute = "NoExecute";
// WorkLoop keys of the periodic passes (node names cannot contain \x01).
const std::string kMonitorKey = "\x01monitor";
const std::string kTaintKey = "\x01taint";
// A node whose pods are to be marked NotReady: its own key, so that a zone's worth of nodes
// turning NotReady in one pass (50,000 pods at 5,000 nodes) is marked a slice at a time, as
// upstream's parallel workers do it beside everything else, not in one blocking pass.
const std::string kMarkPodsPrefix = "\x01mark-pods-not-ready/";
// kube-controller-manager's identity with --use-service-account-credentials.
constexpr std::string_view kUser = "system:serviceaccount:kube-system:node-controller";
constexpr std::string_view kUserAgent =
    "kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/sim/"
    "system:serviceaccount:kube-system:node-controller";

using TaintRef = std::pair<std::string_view, std::string_view>;  // key, effect

bool has_taint(const NodeView& node, std::string_view key, std::string_view effect) {
  return std::any_of(node.taints.begin(), node.taints.end(),
                     [&](const Taint& t) { return t.key == key && t.effect == effect; });
}

// The references RecordNodeEvent ("" apiVersion) and RecordNodeStatusChange ("v1") make: no
// namespace, no resourceVersion.
client::ObjectReference node_reference(std::string_view api_version, const std::string& name,
                                       const std::string& uid) {
  client::ObjectReference ref;
  ref.api_version = api_version;
  ref.kind = "Node";
  ref.name = name;
  ref.uid = uid;
  return ref;
}

std::string label(const StoredObject& object, std::string_view key) {
  auto found = object.labels.find(key);
  return found == object.labels.end() ? std::string() : std::string(found->second);
}

}  // namespace

std::string zone_key(const StoredObject& node) {
  std::string region = label(node, "topology.kubernetes.io/region");
  if (region.empty()) region = label(node, "failure-domain.beta.kubernetes.io/region");
  std::string zone = label(node, "topology.kubernetes.io/zone");
  if (zone.empty()) zone = label(node, "failure-domain.beta.kubernetes.io/zone");
  if (region.empty() && zone.empty()) return "";
  return region + std::string(":\x00:", 3) + zone;
}

ZoneState compute_zone_state(int ready, int not_ready, double unhealthy_threshold) {
  if (ready == 0 && not_ready > 0) return ZoneState::full_disruption;
  if (not_ready > 2 && static_cast<double>(not_ready) / static_cast<double>(not_ready + ready) >=
                           unhealthy_threshold)
    return ZoneState::partial_disruption;
  return ZoneState::normal;
}

NodeLifecycleController::NodeLifecycleController(Context& context)
    : context_(context),
      loop_(context.executor, "node lifecycle controller", context.options.retry_delay),
      events_(context, {"node-controller", ""}, {std::string(kUser), std::string(kUserAgent)}) {
  // nodeUpdateQueue: the NoSchedule taints follow every node update.
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    loop_.add((after != nullptr ? after : before)->object->name);
  });
  loop_.add(kMonitorKey);
}

boost::asio::awaitable<void> NodeLifecycleController::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

bool NodeLifecycleController::reachable() const {
  return context_.api_reachable(kUser, kUserAgent);
}

void NodeLifecycleController::sync(const std::string& key) {
  if (key == kMonitorKey) {
    loop_.add_at(kMonitorKey, Clock::now() + context_.options.node_monitor_period);
    monitor_node_health();
    schedule_tainting_pass();
  } else if (key.starts_with(kMarkPodsPrefix)) {
    const std::string name = key.substr(kMarkPodsPrefix.size());
    const auto node = context_.caches.nodes.get("", name);
    // Gone, forgotten by a restart, or Ready again since: nothing left to mark.
    if (!node || !retry_mark_pods_.contains(name) || node->ready == "True") {
      retry_mark_pods_.erase(name);
    } else if (mark_pods_not_ready(name)) {
      retry_mark_pods_.erase(name);
    }  // else: retried by the next monitor pass (nodesToRetry)
  } else if (key == kTaintKey) {
    no_execute_tainting_pass();
    schedule_tainting_pass();
  } else if (reachable()) {
    no_schedule_tainting_pass(key);
  } else {
    loop_.add_at(key, Clock::now() + context_.options.retry_delay);
  }
}

void NodeLifecycleController::restart() {
  health_.clear();
  known_nodes_.clear();
  retry_mark_pods_.clear();
  zone_states_.clear();
  tainters_.clear();
}

RateLimitedTimedQueue& NodeLifecycleController::tainter(const std::string& zone) {
  auto found = tainters_.find(zone);
  if (found == tainters_.end())  // addPodEvictorForNewZone
    found = tainters_.try_emplace(zone, context_.options.node_eviction_rate, Clock::now()).first;
  return found->second;
}

void NodeLifecycleController::monitor_node_health() {
  const auto now = Clock::now();
  if (!reachable()) {
    // Nothing reaches the controller and nothing it writes reaches the API server.
    if (!unreachable_since_) unreachable_since_ = now;
    return;
  }
  if (unreachable_since_) {
    if (now - *unreachable_since_ >= context_.options.leader_elect_renew_deadline) restart();
    unreachable_since_.reset();
  }
  // A copy: the pass's own writes replace the cached views (and would free the ones iterated).
  const auto nodes = context_.caches.nodes.items();
  std::set<std::string> present;
  std::map<std::string, std::pair<int, int>> zones;  // zone -> (ready, not ready)
  for (const auto& [name, node] : nodes) {
    present.insert(name);
    const std::string zone = zone_key(*node->object);
    if (!zone_states_.contains(zone)) zone_states_[zone] = ZoneState::initial;
    tainter(zone);
    if (known_nodes_.insert(name).second) {
      events_.event(node_reference("", name, node->object->uid), "Normal", "RegisteredNode",
                    fmt::format("Node {} event: Registered Node {} in Controller", name, name));
      mark_node_as_reachable(*node);
    }
    const auto current = update_node_health(*node, now);
    if (!current) continue;
    if (!node->object->labels.contains(std::string_view("node.kubernetes.io/exclude-disruption"))) {
      auto& counts = zones[zone];
      (*current == "True" ? counts.first : counts.second) += 1;
    }
  }
  for (auto it = known_nodes_.begin(); it != known_nodes_.end();) {
    if (present.contains(*it)) {
      ++it;
      continue;
    }
    health_.erase(*it);
    retry_mark_pods_.erase(*it);
    it = known_nodes_.erase(it);
  }
  handle_disruption(zones, now);
}

std::optional<std::string> NodeLifecycleController::update_node_health(const NodeView& node,
                                                                       Clock::time_point now) {
  const auto& name = node.object->name;
  auto lease = context_.caches.leases.get("kube-node-lease", name);
  const std::string renew_time = lease ? lease->renew_time : std::string();
  // tryUpdateNodeHealth: the probe moves when the Ready heartbeat or the Lease's renewTime
  // changes (a node seen for the first time starts its grace period now).
  auto [health, first] = health_.try_emplace(name, NodeHealth{node.heartbeat, renew_time, now});
  if (!first) {
    if (health->second.heartbeat != node.heartbeat) {
      health->second.heartbeat = node.heartbeat;
      health->second.probe = now;
    }
    if (!renew_time.empty() && renew_time > health->second.renew_time) {
      health->second.renew_time = renew_time;
      health->second.probe = now;
    }
  }
  // A node that never posted a Ready condition is observed as Unknown, but acted on only once
  // the controller has written one (currentReadyCondition is nil until then).
  const std::string observed = node.ready.empty() ? "Unknown" : node.ready;
  std::string current = node.ready;
  if (now > health->second.probe + context_.options.node_monitor_grace_period) {
    if (!mark_unknown(node)) return std::nullopt;
    current = "Unknown";
  }
  if (current.empty()) return current;
  auto updated = context_.caches.nodes.get("", name);
  const NodeView& view = updated ? *updated : node;
  process_taint_based_eviction(view, observed);
  const bool needs_retry = retry_mark_pods_.contains(name);
  if (current != "True" && observed == "True") {
    // RecordNodeStatusChange, then MarkPodsNotReady (queued: see kMarkPodsPrefix).
    events_.event(node_reference("v1", name, node.object->uid), "Normal", "NodeNotReady",
                  fmt::format("Node {} status is now: NodeNotReady", name));
    retry_mark_pods_.insert(name);
    loop_.add(kMarkPodsPrefix + name);
  } else if (needs_retry && observed != "True") {
    loop_.add(kMarkPodsPrefix + name);
  } else if (needs_retry) {
    retry_mark_pods_.erase(name);
  }
  return current;
}

bool NodeLifecycleController::mark_unknown(const NodeView& node) {
  if (!reachable()) return false;
  const std::string now = now_time();
  bool changed = false;
  auto written = context_.store.update(
      context_.types.nodes, "", node.object->name, [&](const StoredObject&, json::object object) {
        const std::string created = string_at(object_at(object, "metadata"), "creationTimestamp");
        auto& conditions = array_at(object_at(object, "status"), "conditions");
        for (std::string_view type : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}) {
          auto* condition = find_condition(conditions, type);
          if (condition == nullptr) {
            conditions.push_back(json::object{{"type", type},
                                              {"status", "Unknown"},
                                              {"lastHeartbeatTime", created},
                                              {"lastTransitionTime", now},
                                              {"reason", "NodeStatusNeverUpdated"},
                                              {"message", "Kubelet never posted node status."}});
            changed = true;
          } else if (string_at(*condition, "status") != "Unknown") {
            (*condition)["status"] = "Unknown";
            (*condition)["reason"] = "NodeStatusUnknown";
            (*condition)["message"] = "Kubelet stopped posting node status.";
            (*condition)["lastTransitionTime"] = now;
            changed = true;
          }
        }
        return object;
      });
  if (changed) context_.caches.nodes.observe(std::move(written));
  return true;
}

void NodeLifecycleController::process_taint_based_eviction(const NodeView& node,
                                                           const std::string& observed) {
  const auto& name = node.object->name;
  auto& queue = tainter(zone_key(*node.object));
  const auto now = Clock::now();
  if (observed == "False" || observed == "Unknown") {
    const bool unknown = observed == "Unknown";
    const auto wanted = unknown ? kUnreachable : kNotReady;
    const auto opposite = unknown ? kNotReady : kUnreachable;
    if (has_taint(node, opposite, kNoExecute)) {
      swap_taints(name, {{wanted, kNoExecute}}, {{opposite, kNoExecute}});  // at once
    } else {
      if (!has_taint(node, wanted, kNoExecute)) queue.remove(name);  // markNodeForTainting
      queue.add(name, now);
    }
  } else if (observed == "True") {
    mark_node_as_reachable(node);
  }
}

bool NodeLifecycleController::mark_node_as_reachable(const NodeView& node) {
  bool ok = true;
  if (has_taint(node, kUnreachable, kNoExecute) || has_taint(node, kNotReady, kNoExecute))
    ok = swap_taints(node.object->name, {}, {{kUnreachable, kNoExecute}, {kNotReady, kNoExecute}});
  tainter(zone_key(*node.object)).remove(node.object->name);
  return ok;
}

void NodeLifecycleController::handle_disruption(
    const std::map<std::string, std::pair<int, int>>& zones, Clock::time_point now) {
  std::map<std::string, ZoneState> next;
  bool all_fully_disrupted = true;
  for (const auto& [zone, counts] : zones) {
    next[zone] =
        compute_zone_state(counts.first, counts.second, context_.options.unhealthy_zone_threshold);
    if (next[zone] != ZoneState::full_disruption) all_fully_disrupted = false;
    if (!zone_states_.contains(zone)) zone_states_[zone] = ZoneState::initial;
  }
  bool all_were_fully_disrupted = true;
  for (auto it = zone_states_.begin(); it != zone_states_.end();) {
    if (!zones.contains(it->first)) {
      it = zone_states_.erase(it);
      continue;
    }
    if (it->second != ZoneState::full_disruption) all_were_fully_disrupted = false;
    ++it;
  }
  if (all_fully_disrupted && all_were_fully_disrupted) return;
  if (all_fully_disrupted) {
    // "Entering master disruption mode": no NoExecute taints anywhere, no tainting.
    const auto nodes = context_.caches.nodes.items();  // a copy, as above
    for (const auto& [name, node] : nodes) mark_node_as_reachable(*node);
    for (auto& [zone, state] : zone_states_) {
      tainter(zone).swap_limiter(0, now);
      state = ZoneState::full_disruption;
    }
    return;
  }
  if (all_were_fully_disrupted) {
    // "Exiting master disruption mode": every node gets a fresh probe.
    for (auto& [name, health] : health_) health.probe = now;
    for (auto& [zone, state] : zone_states_) {
      const auto& counts = zones.at(zone);
      set_limiter(zone, counts.first + counts.second, next[zone], now);
      state = next[zone];
    }
    return;
  }
  for (auto& [zone, state] : zone_states_) {
    if (state == next[zone]) continue;
    const auto& counts = zones.at(zone);
    set_limiter(zone, counts.first + counts.second, next[zone], now);
    state = next[zone];
  }
}

void NodeLifecycleController::set_limiter(const std::string& zone, int zone_size, ZoneState state,
                                          Clock::time_point now) {
  const auto& options = context_.options;
  double qps = options.node_eviction_rate;     // Normal, and FullDisruption (HealthyQPSFunc)
  if (state == ZoneState::partial_disruption)  // ReducedQPSFunc
    qps =
        zone_size > options.large_cluster_size_threshold ? options.secondary_node_eviction_rate : 0;
  tainter(zone).swap_limiter(qps, now);
}

void NodeLifecycleController::schedule_tainting_pass() {
  const auto now = Clock::now();
  std::optional<Clock::time_point> next;
  for (const auto& [zone, queue] : tainters_)
    if (auto at = queue.next_attempt(now); at && (!next || *at < *next)) next = at;
  if (next) loop_.add_at(kTaintKey, std::max(*next, now));
}

void NodeLifecycleController::no_execute_tainting_pass() {
  if (!reachable()) return;
  const auto now = Clock::now();
  for (auto& [zone, queue] : tainters_)
    queue.try_process(now, [&](const std::string& name) {
      auto node = context_.caches.nodes.get("", name);
      if (!node) return true;
      if (node->ready == "False")
        return swap_taints(name, {{kNotReady, kNoExecute}}, {{kUnreachable, kNoExecute}});
      if (node->ready == "Unknown")
        return swap_taints(name, {{kUnreachable, kNoExecute}}, {{kNotReady, kNoExecute}});
      return true;  // Ready again: no taint
    });
}

void NodeLifecycleController::no_schedule_tainting_pass(const std::string& node_name) {
  auto node = context_.caches.nodes.get("", node_name);
  if (!node) return;
  std::vector<TaintRef> wanted;
  if (node->ready == "False") wanted.emplace_back(kNotReady, kNoSchedule);
  if (node->ready == "Unknown") wanted.emplace_back(kUnreachable, kNoSchedule);
  if (node->unschedulable) wanted.emplace_back(kUnschedulable, kNoSchedule);
  std::vector<TaintRef> add;
  std::vector<TaintRef> remove;
  for (const auto& taint : wanted)
    if (!has_taint(*node, taint.first, taint.second)) add.push_back(taint);
  for (std::string_view key : {kNotReady, kUnreachable, kUnschedulable})
    if (has_taint(*node, key, kNoSchedule) &&
        std::find(wanted.begin(), wanted.end(), TaintRef(key, kNoSchedule)) == wanted.end())
      remove.emplace_back(key, kNoSchedule);
  if (!add.empty() || !remove.empty()) swap_taints(node_name, add, remove);
}

bool NodeLifecycleController::swap_taints(const std::string& node_name,
                                          const std::vector<TaintRef>& add,
                                          const std::vector<TaintRef>& remove) {
  if (!reachable()) return false;
  const std::string now = now_time();
  auto written = context_.store.update(
      context_.types.nodes, "", node_name, [&](const StoredObject&, json::object object) {
        auto& spec = object_at(object, "spec");
        json::array taints;
        std::vector<std::pair<std::string, std::string>> kept;
        for (const auto& item : array_at(spec, "taints")) {
          const auto* taint = item.if_object();
          if (taint == nullptr) continue;
          std::string key = string_at(*taint, "key");
          std::string effect = string_at(*taint, "effect");
          if (std::find(remove.begin(), remove.end(), TaintRef(key, effect)) != remove.end())
            continue;
          kept.emplace_back(std::move(key), std::move(effect));
          taints.push_back(item);
        }
        for (const auto& [key, effect] : add)
          if (std::find(kept.begin(), kept.end(),
                        std::pair<std::string, std::string>(key, effect)) == kept.end())
            taints.push_back(json::object{{"key", key}, {"effect", effect}, {"timeAdded", now}});
        if (taints.empty())
          spec.erase("taints");
        else
          spec["taints"] = std::move(taints);
        return object;
      });
  context_.caches.nodes.observe(std::move(written));
  return true;
}

// controller_utils.go MarkPodsNotReady: each pod's Ready condition to False, keeping its reason
// and message; lastTransitionTime as UpdatePodCondition sets it (now, the status changed); a
// NodeNotReady Warning Event per pod after its update.
bool NodeLifecycleController::mark_pods_not_ready(const std::string& node_name) {
  if (!reachable()) return false;
  const auto& caches = context_.caches;
  const auto& keys = caches.pods.indexed(caches.pods_by_node, node_name);
  const std::vector<std::string> pod_keys(keys.begin(), keys.end());
  for (const auto& key : pod_keys) {
    auto pod = caches.pods.get(key);
    if (!pod || !pod->ready) continue;
    const auto& object = *pod->object;
    bool changed = false;
    auto written = context_.store.update(
        context_.types.pods, object.namespace_, object.name,
        [&](const StoredObject& current, json::object stored) {
          if (current.uid != object.uid) return stored;
          auto& conditions = array_at(object_at(stored, "status"), "conditions");
          auto* ready = find_condition(conditions, "Ready");
          if (ready == nullptr || string_at(*ready, "status") == "False") return stored;
          (*ready)["status"] = "False";
          (*ready)["lastTransitionTime"] = now_time();
          changed = true;
          return stored;
        });
    if (!changed) continue;
    context_.caches.pods.observe(written);
    events_.event(reference_to("v1", "Pod", *written), "Warning", "NodeNotReady",
                  "Node is not ready");
  }
  return true;
}

}  // namespace rg::sim::cluster
