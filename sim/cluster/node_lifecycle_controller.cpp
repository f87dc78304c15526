// NodeLifecycleController (see node_lifecycle_controller.hpp).
#include "sim/cluster/node_lifecycle_controller.hpp"

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

bool is_controller_taint(std::string_view key) {
  return key == kNotReady || key == kUnreachable || key == kUnschedulable;
}

// The controller's taints a node should carry, as (key, effect).
std::vector<std::pair<std::string_view, std::string_view>> wanted_taints(const NodeView& node) {
  std::vector<std::pair<std::string_view, std::string_view>> wanted;
  if (node.ready == "False" || node.ready == "Unknown") {
    const auto key = node.ready == "False" ? kNotReady : kUnreachable;
    wanted.emplace_back(key, "NoSchedule");
    wanted.emplace_back(key, "NoExecute");
  }
  if (node.unschedulable) wanted.emplace_back(kUnschedulable, "NoSchedule");
  return wanted;
}

}  // namespace

NodeLifecycleController::NodeLifecycleController(Context& context)
    : context_(context),
      loop_(context.executor, "node lifecycle controller", context.options.retry_delay) {
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    loop_.add((after != nullptr ? after : before)->object->name);
  });
  context.caches.leases.add_handler([this](const LeaseView* before, const LeaseView* after) {
    const auto& lease = *(after != nullptr ? after : before)->object;
    if (lease.namespace_ == "kube-node-lease") loop_.add(lease.name);
  });
}

boost::asio::awaitable<void> NodeLifecycleController::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

void NodeLifecycleController::sync(const std::string& node_name) {
  auto node = context_.caches.nodes.get("", node_name);
  if (!node) {
    probes_.erase(node_name);
    return;
  }
  auto lease = context_.caches.leases.get("kube-node-lease", node_name);
  const std::string renew_time = lease ? lease->renew_time : std::string();
  const auto now = Clock::now();
  auto [probe, first] = probes_.try_emplace(node_name, Probe{node->heartbeat, renew_time, now});
  if (!first &&
      (probe->second.heartbeat != node->heartbeat || probe->second.renew_time != renew_time))
    probe->second = Probe{node->heartbeat, renew_time, now};
  const auto deadline = probe->second.seen + context_.options.node_monitor_grace_period;
  if (now >= deadline && node->ready != "Unknown") {
    mark_unknown(*node);
    node = context_.caches.nodes.get("", node_name);
  } else if (node->ready != "Unknown") {
    loop_.add_at(node_name, deadline);
  }
  update_taints(*node);
  if (node->ready != "True") mark_pods_not_ready(node_name);
}

void NodeLifecycleController::mark_unknown(const NodeView& node) {
  const std::string now = now_time();
  auto written = context_.store.update(
      context_.types.nodes, "", node.object->name, [&](const StoredObject&, json::object object) {
        auto& conditions = array_at(object_at(object, "status"), "conditions");
        for (std::string_view type : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}) {
          if (find_condition(conditions, type) == nullptr) {
            conditions.push_back(json::object{{"type", type},
                                              {"status", "Unknown"},
                                              {"lastHeartbeatTime", now},
                                              {"lastTransitionTime", now},
                                              {"reason", "NodeStatusNeverUpdated"},
                                              {"message", "Kubelet never posted node status."}});
            continue;
          }
          set_condition(conditions, type, "Unknown", "NodeStatusUnknown",
                        "Kubelet stopped posting node status.", now);
        }
        return object;
      });
  context_.caches.nodes.observe(std::move(written));
}

void NodeLifecycleController::update_taints(const NodeView& node) {
  const auto wanted = wanted_taints(node);
  bool same = true;
  std::size_t controller_taints = 0;
  for (const auto& taint : node.taints) {
    if (!is_controller_taint(taint.key)) continue;
    ++controller_taints;
    same = same && std::find(wanted.begin(), wanted.end(),
                             std::pair<std::string_view, std::string_view>(
                                 taint.key, taint.effect)) != wanted.end();
  }
  if (same && controller_taints == wanted.size()) return;
  const std::string now = now_time();
  auto written = context_.store.update(
      context_.types.nodes, "", node.object->name, [&](const StoredObject&, json::object object) {
        auto& spec = object_at(object, "spec");
        json::array taints;
        std::vector<std::pair<std::string, std::string>> kept;
        for (const auto& item : array_at(spec, "taints")) {
          const auto* taint = item.if_object();
          if (taint == nullptr) continue;
          const std::string key = string_at(*taint, "key");
          const std::string effect = string_at(*taint, "effect");
          if (is_controller_taint(key) &&
              std::find(wanted.begin(), wanted.end(),
                        std::pair<std::string_view, std::string_view>(key, effect)) == wanted.end())
            continue;
          kept.emplace_back(key, effect);
          taints.push_back(item);
        }
        for (const auto& [key, effect] : wanted)
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
}

void NodeLifecycleController::mark_pods_not_ready(const std::string& node_name) {
  const auto& caches = context_.caches;
  const auto& keys = caches.pods.indexed(caches.pods_by_node, node_name);
  const std::vector<std::string> pod_keys(keys.begin(), keys.end());
  const std::string now = now_time();
  for (const auto& key : pod_keys) {
    auto pod = caches.pods.get(key);
    if (!pod || !pod->ready) continue;
    const auto& object = *pod->object;
    auto written = context_.store.update(
        context_.types.pods, object.namespace_, object.name,
        [&](const StoredObject& current, json::object stored) {
          if (current.uid != object.uid) return stored;
          auto& conditions = array_at(object_at(stored, "status"), "conditions");
          if (find_condition(conditions, "Ready") != nullptr)
            set_condition(conditions, "Ready", "False", "", "", now);
          return stored;
        });
    context_.caches.pods.observe(std::move(written));
  }
}

}  // namespace rg::sim::cluster
