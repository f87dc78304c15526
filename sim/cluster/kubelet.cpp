// Kubelets (see kubelet.hpp).
#include "sim/cluster/kubelet.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <algorithm>
#include <vector>

#include "sim/cluster/json_fields.hpp"
#include "sim/cluster/node_template.hpp"
#include "sim/cluster/pod_lifecycle.hpp"
#include "sim/realistic_pod.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

constexpr std::string_view kLeaseNamespace = "kube-node-lease";

struct NodeCondition {
  std::string_view type;
  std::string_view status;
  std::string_view reason;
  std::string_view message;
};

// What a healthy kubelet posts (pkg/kubelet/nodestatus/setters.go).
constexpr NodeCondition kHealthy[] = {
    {"MemoryPressure", "False", "KubeletHasSufficientMemory",
     "kubelet has sufficient memory available"},
    {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
    {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
    {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
};

std::string host_ip_of(const json::object& node) {
  if (const auto* status = find_object(node, "status"))
    if (const auto* addresses = find_array(*status, "addresses"))
      for (const auto& address : *addresses)
        if (const auto* a = address.if_object(); a && string_at(*a, "type") == "InternalIP")
          return string_at(*a, "address");
  return "10.0.0.1";
}

}  // namespace

Kubelets::Kubelets(Context& context)
    : context_(context), loop_(context.executor, "kubelet", context.options.retry_delay) {
  context.kubelet_control.on_change([this](const std::string& node) { loop_.add(node); });
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    loop_.add((after != nullptr ? after : before)->object->name);
  });
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    for (const auto* pod : {before, after})
      if (pod != nullptr && !pod->node_name.empty()) loop_.add(pod->node_name);
  });
}

Kubelets::~Kubelets() { context_.kubelet_control.on_change({}); }

boost::asio::awaitable<void> Kubelets::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

void Kubelets::sync(const std::string& node_name) {
  auto node = context_.caches.nodes.get("", node_name);
  if (!node) {
    kubelets_.erase(node_name);
    context_.kubelet_control.forget(node_name);
    return;
  }
  if (node->kubelet_stopped || !context_.kubelet_control.alive(node_name)) {
    kubelets_.erase(node_name);  // a restarted kubelet begins afresh
    return;
  }
  auto& kubelet = kubelets_[node_name];
  const auto now = Clock::now();
  if (now >= kubelet.next_heartbeat) {
    heartbeat(*node);
    kubelet.next_heartbeat = now + context_.options.node_status_update_frequency;
    node = context_.caches.nodes.get("", node_name);
  }
  auto next = kubelet.next_heartbeat;
  const auto& caches = context_.caches;
  const auto& keys = caches.pods.indexed(caches.pods_by_node, node_name);
  const std::vector<std::string> pod_keys(keys.begin(), keys.end());  // syncing edits the index
  std::erase_if(kubelet.starting, [&](auto& entry) { return !keys.contains(entry.first); });
  std::erase_if(kubelet.stopping, [&](auto& entry) { return !keys.contains(entry.first); });
  for (const auto& key : pod_keys) {
    auto pod = caches.pods.get(key);
    if (!pod) continue;
    if (pod->deleting) {
      kubelet.starting.erase(key);
      auto [entry, added] =
          kubelet.stopping.try_emplace(key, now + context_.options.pod_termination_delay);
      if (entry->second <= now) {
        kubelet.stopping.erase(entry);
        remove_pod(context_, *pod);
      } else {
        next = std::min(next, entry->second);
      }
    } else if (pod->phase == "Pending") {
      auto [entry, added] =
          kubelet.starting.try_emplace(key, now + context_.options.pod_start_delay);
      if (entry->second <= now) {
        kubelet.starting.erase(entry);
        start_pod(*pod, *node);
      } else {
        next = std::min(next, entry->second);
      }
    } else if (pod->phase == "Running" && !pod->ready) {
      report_ready(*pod);
    }
  }
  loop_.add_at(node_name, next);
}

void Kubelets::heartbeat(const NodeView& node) {
  renew_lease(node);
  const std::string now = now_time();
  const std::string& version = context_.options.kubelet_version;
  auto written = context_.store.update(
      context_.types.nodes, "", node.object->name, [&](const StoredObject&, json::object object) {
        auto& status = object_at(object, "status");
        // A node created bare through the API: its nodeInfo is there, empty (wire form).
        if (string_at(object_at(status, "nodeInfo"), "kubeletVersion").empty())
          fill_node_status(status, node.object->name, version);
        auto& conditions = array_at(status, "conditions");
        for (const auto& condition : kHealthy) {
          set_condition(conditions, condition.type, condition.status, condition.reason,
                        condition.message, now);
          (*find_condition(conditions, condition.type))["lastHeartbeatTime"] = now;
        }
        return object;
      });
  context_.caches.nodes.observe(std::move(written));
}

void Kubelets::renew_lease(const NodeView& node) {
  const auto& leases = context_.types.leases;
  const auto& name = node.object->name;
  const std::string now = now_micro_time();
  if (context_.store.get(leases, kLeaseNamespace, name) == nullptr) {
    json::object lease{
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", json::object{{"name", name},
                                  {"namespace", kLeaseNamespace},
                                  {"ownerReferences",
                                   json::array{json::object{{"apiVersion", "v1"},
                                                            {"kind", "Node"},
                                                            {"name", name},
                                                            {"uid", node.object->uid}}}}}},
        {"spec",
         json::object{{"holderIdentity", name}, {"leaseDurationSeconds", 40}, {"renewTime", now}}}};
    context_.caches.leases.observe(context_.store.create(leases, std::move(lease)));
    context_.kubelet_control.renewed(name, now);
    return;
  }
  auto written = context_.store.update(leases, kLeaseNamespace, name,
                                       [&](const StoredObject&, json::object object) {
                                         object_at(object, "spec")["renewTime"] = now;
                                         return object;
                                       });
  context_.caches.leases.observe(std::move(written));
  context_.kubelet_control.renewed(name, now);
}

void Kubelets::start_pod(const PodView& pod, const NodeView& node) {
  const auto& object = *pod.object;
  const std::string now = now_time();
  const std::string host_ip = host_ip_of(node.object->parse());
  const std::uint64_t n = ++started_pods_;
  const std::string pod_ip = fmt::format("10.{}.{}.{}", 244 + (n >> 16) % 8, (n >> 8) & 0xff,
                                         std::max<std::uint64_t>(n & 0xff, 2));
  auto written = context_.store.update(
      context_.types.pods, object.namespace_, object.name,
      [&](const StoredObject& current, json::object stored) {
        if (current.uid != object.uid) return stored;
        auto& status = object_at(stored, "status");
        if (string_at(status, "phase") != "Pending") return stored;
        status["phase"] = "Running";
        auto& conditions = array_at(status, "conditions");
        for (std::string_view type :
             {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"})
          set_condition(conditions, type, "True", "", "", now);
        for (auto& condition : conditions)
          if (auto* c = condition.if_object(); c && !c->contains("lastProbeTime"))
            (*c)["lastProbeTime"] = nullptr;
        status["hostIP"] = host_ip;
        status["hostIPs"] = json::array{json::object{{"ip", host_ip}}};
        status["podIP"] = pod_ip;
        status["podIPs"] = json::array{json::object{{"ip", pod_ip}}};
        status["startTime"] = now;
        json::array statuses;
        for (const auto& item : array_at(object_at(stored, "spec"), "containers")) {
          const auto* container = item.if_object();
          if (container == nullptr) continue;
          const std::string name = string_at(*container, "name");
          const std::string image = string_at(*container, "image");
          std::string id = uuid_from(object.uid + "/" + name);
          std::erase(id, '-');  // 32 hex digits; a containerd id has 64
          statuses.push_back(json::object{
              {"name", name},
              {"state", json::object{{"running", json::object{{"startedAt", now}}}}},
              {"lastState", json::object{}},
              {"ready", true},
              {"restartCount", 0},
              {"image", image},
              {"imageID",
               fmt::format("{}@sha256:{}", image.substr(0, image.find(':', image.rfind('/') + 1)),
                           std::string(64, 'e'))},
              {"containerID", fmt::format("containerd://{}{}", id, id)},
              {"started", true}});
        }
        status["containerStatuses"] = std::move(statuses);
        return stored;
      });
  context_.caches.pods.observe(std::move(written));
}

void Kubelets::report_ready(const PodView& pod) {
  const auto& object = *pod.object;
  const std::string now = now_time();
  auto written = context_.store.update(
      context_.types.pods, object.namespace_, object.name,
      [&](const StoredObject& current, json::object stored) {
        if (current.uid != object.uid) return stored;
        auto& conditions = array_at(object_at(stored, "status"), "conditions");
        set_condition(conditions, "Ready", "True", "", "", now);
        set_condition(conditions, "ContainersReady", "True", "", "", now);
        return stored;
      });
  context_.caches.pods.observe(std::move(written));
}

}  // namespace rg::sim::cluster
