// Kubelets (see kubelet.hpp).
#include "sim/cluster/kubelet.hpp"

#include <fmt/format.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <utility>
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
  std::string_view event;  ///< recorded when the condition moves to this status
};

// What a healthy kubelet posts (pkg/kubelet/nodestatus/setters.go).
constexpr NodeCondition kHealthy[] = {
    {"MemoryPressure", "False", "KubeletHasSufficientMemory",
     "kubelet has sufficient memory available", "NodeHasSufficientMemory"},
    {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
     "NodeHasNoDiskPressure"},
    {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
     "NodeHasSufficientPID"},
    {"Ready", "True", "KubeletReady", "kubelet is posting ready status", "NodeReady"},
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

bool node_status_changed(const NodeView& node) {
  const auto object = node.object->parse();
  const auto* status = find_object(object, "status");
  if (status == nullptr || !status->contains("nodeInfo")) return true;
  const auto* conditions = find_array(*status, "conditions");
  if (conditions == nullptr) return true;
  for (const auto& healthy : kHealthy) {
    const auto* condition = find_condition(*conditions, healthy.type);
    if (condition == nullptr || string_at(*condition, "status") != healthy.status ||
        string_at(*condition, "reason") != healthy.reason ||
        string_at(*condition, "message") != healthy.message)
      return true;
  }
  return false;
}

Kubelets::Kubelets(Context& context)
    : context_(context),
      loop_(context.executor, "kubelet", context.options.retry_delay),
      lease_loop_(context.executor, "kubelet lease", context.options.retry_delay) {
  // The Lease first: a kubelet (re)started renews before it posts its status, as in one sync.
  context.kubelet_control.on_change([this](const std::string& node) {
    lease_loop_.add(node);
    loop_.add(node);
  });
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    const std::string& name = (after != nullptr ? after : before)->object->name;
    // A new node, a gone one, or a kubelet stopped or started by its label.
    if (before == nullptr || after == nullptr || before->kubelet_stopped != after->kubelet_stopped)
      lease_loop_.add(name);
    loop_.add(name);
  });
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    for (const auto* pod : {before, after})
      if (pod != nullptr && !pod->node_name.empty()) loop_.add(pod->node_name);
  });
}

Kubelets::~Kubelets() { context_.kubelet_control.on_change({}); }

boost::asio::awaitable<void> Kubelets::run() {
  using namespace boost::asio::experimental::awaitable_operators;
  auto sync = [this](const std::string& key) { this->sync(key); };
  auto sync_lease = [this](const std::string& key) { this->sync_lease(key); };
  co_await (loop_.run(sync) && lease_loop_.run(sync_lease));
}

bool Kubelets::reachable(const std::string& node_name) const {
  return context_.api_reachable("system:node:" + node_name, kKubeletUserAgent);
}

// wait.JitterUntil(f, period, 0.04, sliding=true): each wait is period x [1, 1.04).
Kubelets::Clock::duration Kubelets::jittered(Clock::duration period) {
  const double factor = 1 + 0.04 * std::uniform_real_distribution<double>(0, 1)(random_);
  return std::chrono::duration_cast<Clock::duration>(period * factor);
}

Kubelets::InFlight Kubelets::make_write(const std::string& node_name, Clock::time_point now,
                                        std::string stamp) {
  return {now, now + context_.kubelet_control.renewal_delay(node_name), std::move(stamp)};
}

Kubelets::Kubelet* Kubelets::running(const std::string& node_name, const NodeView* node) {
  if (node == nullptr) {
    kubelets_.erase(node_name);
    images_.erase(node_name);
    context_.kubelet_control.forget(node_name);
    return nullptr;
  }
  if (node->kubelet_stopped || !context_.kubelet_control.alive(node_name)) {
    kubelets_.erase(node_name);  // a restarted kubelet begins afresh
    return nullptr;
  }
  const auto incarnation = context_.kubelet_control.incarnation(node_name);
  auto& kubelet = kubelets_[node_name];
  if (!kubelet.events || kubelet.incarnation != incarnation) {
    kubelet = Kubelet{};
    kubelet.incarnation = incarnation;
    kubelet.events = std::make_unique<KubeletEvents>(
        context_, node_name, Identity{"system:node:" + node_name, std::string(kKubeletUserAgent)});
    kubelet.events->starting();
  }
  return &kubelet;
}

void Kubelets::sync(const std::string& node_name) {
  auto node = context_.caches.nodes.get("", node_name);
  Kubelet* kubelet = running(node_name, node.get());
  if (kubelet == nullptr) return;
  const auto now = Clock::now();
  auto next = sync_node_status(*kubelet, *node, now);
  if (auto current = context_.caches.nodes.get("", node_name)) node = std::move(current);
  next = std::min(next, sync_pods(*kubelet, *node, now));
  loop_.add_at(node_name, next);
}

void Kubelets::sync_lease(const std::string& node_name) {
  const auto node = context_.caches.nodes.get("", node_name);
  Kubelet* kubelet = running(node_name, node.get());
  if (kubelet == nullptr) return;
  lease_loop_.add_at(node_name, sync_lease(*kubelet, *node, Clock::now()));
}

// The lease controller (component-helpers lease/controller.go): a sync every renew interval
// (sliding, jittered); an update that fails (five immediate attempts) falls back to
// backoffEnsureLease, which retries after 200 ms, 400 ms, ... at most 7 s until the API server
// answers, and then renews.
Kubelets::Clock::time_point Kubelets::sync_lease(Kubelet& kubelet, const NodeView& node,
                                                 Clock::time_point now) {
  const auto& name = node.object->name;
  if (!kubelet.renewal) {
    if (now < kubelet.next_renewal) return kubelet.next_renewal;
    kubelet.renewal = make_write(name, now, now_micro_time());
  }
  if (now < kubelet.renewal->lands) return kubelet.renewal->lands;
  const InFlight renewal = *std::exchange(kubelet.renewal, std::nullopt);
  if (reachable(name)) {
    renew_lease(node, renewal.stamp);
    kubelet.backoff = {};
    kubelet.next_renewal = now + jittered(context_.options.lease_renew_interval());
  } else {
    kubelet.backoff = std::min<Clock::duration>(
        std::max<Clock::duration>(2 * kubelet.backoff, 2 * context_.options.lease_backoff_initial),
        context_.options.lease_backoff_max);
    kubelet.next_renewal = now + kubelet.backoff;
  }
  return kubelet.next_renewal;
}

// syncNodeStatus (kubelet_node_status.go), run by wait.JitterUntil every
// node_status_update_frequency: tryUpdateNodeStatus writes only a changed status, or an
// unchanged one once node_status_report_frequency has passed since the last report. A failed
// write (nodeStatusUpdateRetry immediate attempts) waits for the next period.
Kubelets::Clock::time_point Kubelets::sync_node_status(Kubelet& kubelet, const NodeView& node,
                                                       Clock::time_point now) {
  const auto& name = node.object->name;
  const auto& options = context_.options;
  if (!kubelet.status) {
    if (now < kubelet.next_status) return kubelet.next_status;
    const bool due =
        !kubelet.last_report || now >= *kubelet.last_report + options.node_status_report_frequency;
    if (!due && !node_status_changed(node)) {
      kubelet.next_status = now + jittered(options.node_status_update_frequency);
      return kubelet.next_status;
    }
    kubelet.status = make_write(name, now, now_time());
  }
  if (now < kubelet.status->lands) return kubelet.status->lands;
  const InFlight status = *std::exchange(kubelet.status, std::nullopt);
  if (reachable(name)) {
    post_node_status(kubelet, node, status.stamp);
    kubelet.last_report = status.made;
  }
  kubelet.next_status = now + jittered(options.node_status_update_frequency);
  return kubelet.next_status;
}

// The pod workers (start, stop) and the status manager's periodic sync, which puts back a
// Ready condition someone else changed (the status manager's syncBatch every syncPeriod).
Kubelets::Clock::time_point Kubelets::sync_pods(Kubelet& kubelet, const NodeView& node,
                                                Clock::time_point now) {
  const auto& node_name = node.object->name;
  const auto& options = context_.options;
  const bool status_sync = now >= kubelet.next_pod_sync;
  if (status_sync) kubelet.next_pod_sync = now + options.pod_status_sync_period;
  auto next = kubelet.next_pod_sync;
  const auto& caches = context_.caches;
  const auto& keys = caches.pods.indexed(caches.pods_by_node, node_name);
  const std::vector<std::string> pod_keys(keys.begin(), keys.end());  // syncing edits the index
  std::erase_if(kubelet.starting, [&](auto& entry) { return !keys.contains(entry.first); });
  std::erase_if(kubelet.stopping, [&](auto& entry) { return !keys.contains(entry.first); });
  const bool can_write = reachable(node_name);
  if (!can_write) next = std::min(next, now + options.retry_delay);
  for (const auto& key : pod_keys) {
    auto pod = caches.pods.get(key);
    if (!pod) continue;
    if (pod->deleting) {
      kubelet.starting.erase(key);
      auto [entry, added] = kubelet.stopping.try_emplace(key, now + options.pod_termination_delay);
      if (added && pod->phase == "Running") kubelet.events->pod_stopping(*pod);
      if (entry->second > now) {
        next = std::min(next, entry->second);
      } else if (can_write) {
        kubelet.stopping.erase(entry);
        remove_pod(context_, *pod);
      }
    } else if (pod->phase == "Pending") {
      auto [entry, added] = kubelet.starting.try_emplace(key, now + options.pod_start_delay);
      if (added) kubelet.events->pod_seen(*pod, images_[node_name]);
      if (entry->second > now) {
        next = std::min(next, entry->second);
      } else if (can_write) {
        kubelet.starting.erase(entry);
        start_pod(kubelet, *pod, node);
      }
    } else if (pod->phase == "Running" && !pod->ready && status_sync && can_write) {
      report_ready(*pod);
    }
  }
  return next;
}

void Kubelets::post_node_status(Kubelet& kubelet, const NodeView& node,
                                const std::string& heartbeat) {
  const std::string& version = context_.options.kubelet_version;
  std::vector<std::string_view> moved;  // the conditions this status makes healthy
  auto written = context_.store.update(
      context_.types.nodes, "", node.object->name, [&](const StoredObject&, json::object object) {
        auto& status = object_at(object, "status");
        // A node created bare through the API: its nodeInfo is there, empty (wire form).
        if (string_at(object_at(status, "nodeInfo"), "kubeletVersion").empty())
          fill_node_status(status, node.object->name, version);
        auto& conditions = array_at(status, "conditions");
        moved.clear();
        for (const auto& condition : kHealthy) {
          // setters.go: a pressure condition records its Event when it appears or changes;
          // Ready only when it changes.
          const auto* before = find_condition(conditions, condition.type);
          if (before != nullptr ? string_at(*before, "status") != condition.status
                                : condition.type != "Ready")
            moved.push_back(condition.event);
          set_condition(conditions, condition.type, condition.status, condition.reason,
                        condition.message, heartbeat);
          (*find_condition(conditions, condition.type))["lastHeartbeatTime"] = heartbeat;
        }
        return object;
      });
  context_.caches.nodes.observe(std::move(written));
  for (auto reason : moved) kubelet.events->node_status(reason);
}

void Kubelets::renew_lease(const NodeView& node, const std::string& renew_time) {
  const auto& leases = context_.types.leases;
  const auto& name = node.object->name;
  // Whole seconds, rounded up (a scaled cluster's 40 ms lease says 1 s).
  const auto duration_seconds =
      std::chrono::ceil<std::chrono::seconds>(context_.options.node_lease_duration).count();
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
        {"spec", json::object{{"holderIdentity", name},
                              {"leaseDurationSeconds", std::max<std::int64_t>(duration_seconds, 1)},
                              {"renewTime", renew_time}}}};
    context_.caches.leases.observe(context_.store.create(leases, std::move(lease)));
  } else {
    auto written = context_.store.update(leases, kLeaseNamespace, name,
                                         [&](const StoredObject&, json::object object) {
                                           object_at(object, "spec")["renewTime"] = renew_time;
                                           return object;
                                         });
    context_.caches.leases.observe(std::move(written));
  }
  context_.kubelet_control.renewed(name, renew_time);
}

void Kubelets::start_pod(Kubelet& kubelet, const PodView& pod, const NodeView& node) {
  const auto& object = *pod.object;
  const std::string now = now_time();
  const std::string host_ip = host_ip_of(node.object->parse());
  // Distinct addresses 10.244.0.2 onwards (.0, .1 and .255 of each /24 left out).
  const std::uint64_t n = started_pods_++;
  const std::string pod_ip =
      fmt::format("10.{}.{}.{}", 244 + (n / (253 * 256)) % 8, (n / 253) % 256, 2 + n % 253);
  bool started = false;
  auto written = context_.store.update(
      context_.types.pods, object.namespace_, object.name,
      [&](const StoredObject& current, json::object stored) {
        if (current.uid != object.uid) return stored;
        auto& status = object_at(stored, "status");
        if (string_at(status, "phase") != "Pending") return stored;
        started = true;
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
  context_.caches.pods.observe(written);
  if (started) kubelet.events->pod_started(*written, images_[node.object->name]);
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
