// Scheduler (see scheduler.hpp).
#include "sim/cluster/scheduler.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <limits>
#include <map>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

// The WorkLoop key of the events library's finishSeries pass (pod keys contain no \x01).
const std::string kFinishSeriesKey = "\x01finish-series";

}  // namespace

// The recorder of the profile's scheduler name; its instance is "<controller>-<hostname>"
// (tools/events NewRecorder), the host being kube-sim's control plane.
Scheduler::Scheduler(Context& context)
    : context_(context),
      loop_(context.executor, "scheduler", context.options.retry_delay),
      events_(context, "default-scheduler", "default-scheduler-kube-sim",
              {"system:kube-scheduler", "kube-scheduler/v1.35.0 (linux/amd64) kubernetes/sim"}) {
  loop_.add_at(kFinishSeriesKey, WorkLoop::Clock::now() + context.options.event_series_finish);
  context.caches.pods.add_handler([this](const PodView*, const PodView* after) {
    if (after != nullptr && after->node_name.empty() && after->active())
      loop_.add(after->object->key());
  });
  context.caches.nodes.add_handler([this](const NodeView*, const NodeView* after) {
    if (after == nullptr) return;
    for (const auto& key :
         context_.caches.pods.indexed(context_.caches.unscheduled_pods, "pending"))
      loop_.add(key);
  });
}

boost::asio::awaitable<void> Scheduler::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

std::string Scheduler::pick_node(const PodView& pod, std::string& reason) const {
  const auto& caches = context_.caches;
  std::string best;
  std::size_t best_load = std::numeric_limits<std::size_t>::max();
  std::map<std::string, int> rejected;  // reason -> nodes
  for (const auto& [name, node] : caches.nodes.items()) {
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
      std::size_t load = 0;
      for (const auto& key : caches.pods.indexed(caches.pods_by_node, name))
        if (auto bound = caches.pods.get(key); bound && bound->active()) ++load;
      if (load < best_load) {
        best = name;
        best_load = load;
      }
    }
  }
  if (best.empty()) {
    std::string parts;
    for (const auto& [why, count] : rejected)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", count, why);
    const auto nodes = caches.nodes.items().size();
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
