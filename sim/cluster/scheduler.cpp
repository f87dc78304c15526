// Scheduler (see scheduler.hpp).
#include "sim/cluster/scheduler.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

// The WorkLoop key of the events library's finishSeries pass (pod keys contain no \x01).
const std::string kFinishSeriesKey = "\x01finish-series";

}  // namespace

// kube-scheduler requeues its unschedulable pods on a node update only when
// NodeSchedulingPropertiesChange finds one (unschedulable, allocatable, labels, taints, conditions
// without their heartbeats), and then only for the plugins whose queueing hint says the change may
// help (NodeUnschedulable: the node became schedulable; TaintToleration: a taint went). A
// heartbeat, a node turning NotReady, a cordon or a new taint fits no pod; requeueing every pending
// pod for each of them stalled the simulated cluster in a zone failure (1,667 nodes turning
// NotReady and tainted while ~40,000 surge pods waited).
bool may_fit_more_pods(const NodeView* before, const NodeView& after) {
  if (before == nullptr) return true;
  if (after.ready == "True" && before->ready != "True") return true;
  if (before->unschedulable && !after.unschedulable) return true;
  for (const auto& taint : before->taints) {
    const bool kept = std::any_of(after.taints.begin(), after.taints.end(), [&](const Taint& t) {
      return t.key == taint.key && t.value == taint.value && t.effect == taint.effect;
    });
    if (!kept) return true;
  }
  return before->object->labels != after.object->labels;
}

// The recorder of the profile's scheduler name; its instance is "<controller>-<hostname>"
// (tools/events NewRecorder), the host being kube-sim's control plane.
Scheduler::Scheduler(Context& context)
    : context_(context),
      loop_(context.executor, "scheduler", context.options.retry_delay),
      events_(context, "default-scheduler", "default-scheduler-kube-sim",
              {"system:kube-scheduler", "kube-scheduler/v1.35.0 (linux/amd64) kubernetes/sim"}) {
  loop_.add_at(kFinishSeriesKey, WorkLoop::Clock::now() + context.options.event_series_finish);
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    if (before != nullptr && before->active() && !before->node_name.empty()) {
      if (auto it = load_.find(before->node_name); it != load_.end() && --it->second == 0)
        load_.erase(it);
    }
    if (after != nullptr && after->active() && !after->node_name.empty()) ++load_[after->node_name];
    if (after != nullptr && after->node_name.empty() && after->active())
      loop_.add(after->object->key());
  });
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    if (before == nullptr || after == nullptr) node_order_.clear();
    if (after == nullptr || !may_fit_more_pods(before, *after)) return;
    for (const auto& key :
         context_.caches.pods.indexed(context_.caches.unscheduled_pods, "pending"))
      loop_.add(key);
  });
}

boost::asio::awaitable<void> Scheduler::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

std::size_t num_feasible_nodes_to_find(std::size_t nodes) {
  constexpr std::size_t kMinFeasibleNodesToFind = 100;
  constexpr std::size_t kMinFeasibleNodesPercentageToFind = 5;
  if (nodes < kMinFeasibleNodesToFind) return nodes;
  const std::size_t percentage = std::max<std::ptrdiff_t>(
      50 - static_cast<std::ptrdiff_t>(nodes / 125), kMinFeasibleNodesPercentageToFind);
  return std::max(nodes * percentage / 100, kMinFeasibleNodesToFind);
}

std::string Scheduler::pick_node(const PodView& pod, std::string& reason) {
  const auto& caches = context_.caches;
  if (node_order_.empty())
    for (const auto& [name, node] : caches.nodes.items()) node_order_.push_back(name);
  const std::size_t nodes = node_order_.size();
  const std::size_t wanted = num_feasible_nodes_to_find(nodes);
  std::string best;
  std::size_t best_load = std::numeric_limits<std::size_t>::max();
  std::size_t feasible = 0, processed = 0;
  std::map<std::string, int> rejected;  // reason -> nodes
  // findNodesThatPassFilters: from nextStartNodeIndex until enough nodes fit.
  for (; processed < nodes && feasible < wanted; ++processed) {
    const std::string& name = node_order_[(next_start_ + processed) % nodes];
    const auto node = caches.nodes.get(name);
    if (!node) continue;
    if (node->ready != "True") {
      ++rejected["node(s) were not ready"];
    } else if (node->unschedulable) {
      ++rejected["node(s) were unschedulable"];
    } else if (!pod.tolerates_all(node->taints, "NoSchedule") ||
               !pod.tolerates_all(node->taints, "NoExecute")) {
      ++rejected["node(s) had untolerated taint"];
    } else if (!pod.selects(*node->object)) {
      ++rejected["node(s) didn't match Pod's node affinity/selector"];
    } else {
      ++feasible;
      const auto counted = load_.find(name);
      const std::size_t load = counted == load_.end() ? 0 : counted->second;
      if (load < best_load || (load == best_load && name < best)) {
        best = name;
        best_load = load;
      }
    }
  }
  if (nodes > 0) next_start_ = (next_start_ + processed) % nodes;
  if (best.empty()) {
    std::string parts;
    for (const auto& [why, count] : rejected)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", count, why);
    reason = fmt::format("0/{} nodes are available: {}.", nodes,
                         parts.empty() ? std::string("no nodes") : parts);
    // FitError.Error() appends the PostFilter plugins' messages, joined with ", ":
    // DynamicResources (on by default since 1.34) for a pod without claims, then
    // DefaultPreemption, which no rejection here can help (all are UnschedulableAndUnresolvable).
    if (nodes > 0)
      reason += fmt::format(
          " no new claims to deallocate, preemption: 0/{} nodes are available: {} Preemption is "
          "not helpful for scheduling.",
          nodes, nodes);
  }
  return best;
}

void Scheduler::sync(const std::string& key) {
  if (key == kFinishSeriesKey) {
    events_.finish_series(std::chrono::system_clock::now());
    loop_.add_at(key, WorkLoop::Clock::now() + context_.options.event_series_finish);
    return;
  }
  auto pod = context_.caches.pods.get(key);
  if (!pod || !pod->node_name.empty() || !pod->active()) return;
  if (pod->scheduler_name != "default-scheduler" && !pod->scheduler_name.empty()) return;
  std::string reason;
  const std::string node = pick_node(*pod, reason);
  const std::string now = now_time();
  const auto& object = *pod->object;
  const auto reference = reference_to("v1", "Pod", object);
  // schedule_one.go handleSchedulingFailure: the Event, then the condition.
  if (node.empty()) events_.event(reference, "Warning", "FailedScheduling", "Scheduling", reason);
  bool bound = false;
  auto written = context_.store.update(
      context_.types.pods, object.namespace_, object.name,
      [&](const StoredObject& current, json::object stored) {
        if (current.uid != object.uid || !string_at(object_at(stored, "spec"), "nodeName").empty())
          return stored;
        auto& conditions = array_at(object_at(stored, "status"), "conditions");
        if (node.empty()) {
          set_condition(conditions, "PodScheduled", "False", "Unschedulable", reason, now);
        } else {
          bound = true;
          object_at(stored, "spec")["nodeName"] = node;
          set_condition(conditions, "PodScheduled", "True", "", "", now);
          if (auto* scheduled = find_condition(conditions, "PodScheduled")) {
            scheduled->erase("reason");
            scheduled->erase("message");
          }
        }
        return stored;
      });
  context_.caches.pods.observe(written);
  // schedule_one.go finishBinding
  if (bound)
    events_.event(
        reference, "Normal", "Scheduled", "Binding",
        fmt::format("Successfully assigned {}/{} to {}", object.namespace_, object.name, node));
}

}  // namespace rg::sim::cluster
