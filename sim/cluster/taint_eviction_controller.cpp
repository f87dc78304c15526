// TaintEvictionController (see taint_eviction_controller.hpp).
#include "sim/cluster/taint_eviction_controller.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <optional>
#include <vector>

#include "sim/cluster/json_fields.hpp"
#include "sim/cluster/pod_lifecycle.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

TaintEvictionController::TaintEvictionController(Context& context)
    : context_(context),
      loop_(context.executor, "taint eviction controller", context.options.retry_delay),
      events_(context, {"taint-eviction-controller", ""},
              controller_identity("taint-eviction-controller")) {
  context.caches.nodes.add_handler([this](const NodeView* before, const NodeView* after) {
    loop_.add((after != nullptr ? after : before)->object->name);
  });
  context.caches.pods.add_handler([this](const PodView* before, const PodView* after) {
    if (after == nullptr && before != nullptr && scheduled_.contains(before->object->key()))
      loop_.add(before->node_name);  // a pod gone with its eviction pending
    if (after == nullptr || after->node_name.empty() || after->deleting) return;
    auto node = context_.caches.nodes.get("", after->node_name);
    if (!node) return;
    for (const auto& taint : node->taints)
      if (taint.effect == "NoExecute") {
        loop_.add(after->node_name);
        return;
      }
  });
}

boost::asio::awaitable<void> TaintEvictionController::run() {
  auto sync = [this](const std::string& key) { this->sync(key); };
  co_await loop_.run(sync);
}

void TaintEvictionController::sync(const std::string& node_name) {
  auto node = context_.caches.nodes.get("", node_name);
  const auto now = Clock::now();
  std::vector<Taint> no_execute;
  if (node)
    for (const auto& taint : node->taints)
      if (taint.effect == "NoExecute") no_execute.push_back(taint);
  // Forget taints that are gone; note when new ones appeared.
  std::erase_if(tainted_since_, [&](const auto& entry) {
    const auto& [node_key, key, value] = entry.first;
    if (node_key != node_name) return false;
    for (const auto& taint : no_execute)
      if (taint.key == key && taint.value == value) return false;
    return true;
  });
  for (const auto& taint : no_execute)
    tainted_since_.try_emplace({node_name, taint.key, taint.value}, now);
  const auto& caches = context_.caches;
  // cancelWorkWithEvent: pending evictions of pods that went, or of a node without taints now.
  for (auto it = scheduled_.begin(); it != scheduled_.end();) {
    if (it->second == node_name && (no_execute.empty() || !caches.pods.get(it->first))) {
      record(it->first, "Cancelling deletion of Pod");
      it = scheduled_.erase(it);
    } else {
      ++it;
    }
  }
  if (no_execute.empty()) return;

  const auto& keys = caches.pods.indexed(caches.pods_by_node, node_name);
  const std::vector<std::string> pod_keys(keys.begin(), keys.end());
  std::optional<Clock::time_point> next;
  for (const auto& key : pod_keys) {
    auto pod = caches.pods.get(key);
    if (!pod || pod->deleting) continue;
    std::optional<Clock::time_point> evict_at;  // none: tolerated for ever
    for (const auto& taint : no_execute) {
      std::optional<std::int64_t> seconds;
      bool matched = false;
      bool forever = false;
      for (const auto& toleration : pod->tolerations) {
        if (!tolerates(toleration, taint)) continue;
        matched = true;
        if (!toleration.toleration_seconds) {
          forever = true;
        } else if (!seconds || *toleration.toleration_seconds < *seconds) {
          seconds = toleration.toleration_seconds;
        }
      }
      if (forever) continue;
      Clock::time_point at = now;
      if (matched) {
        const auto since = tainted_since_.at({node_name, taint.key, taint.value});
        const auto timeout = context_.options.pod_eviction_timeout;
        at = since + timeout * std::max<std::int64_t>(*seconds, 0) / 300;
      }
      if (!evict_at || at < *evict_at) evict_at = at;
    }
    if (!evict_at) {
      if (scheduled_.erase(key) > 0) record(key, "Cancelling deletion of Pod");
      continue;
    }
    if (*evict_at <= now) {
      scheduled_.erase(key);
      record(key, "Marking for deletion Pod");
      evict(*pod);
      continue;
    }
    scheduled_[key] = node_name;
    if (!next || *evict_at < *next) {
      next = evict_at;
    }
  }
  if (next) loop_.add_at(node_name, *next);
}

void TaintEvictionController::record(const std::string& key, std::string_view what) {
  const auto slash = key.find('/');
  client::ObjectReference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.namespace_ = key.substr(0, slash);
  ref.name = key.substr(slash + 1);
  events_.event(ref, "Normal", "TaintManagerEviction", fmt::format("{} {}", what, key));
}

void TaintEvictionController::evict(const PodView& pod) {
  const auto& object = *pod.object;
  const std::string now = now_time();
  auto marked = context_.store.update(
      context_.types.pods, object.namespace_, object.name,
      [&](const StoredObject& current, json::object stored) {
        if (current.uid != object.uid) return stored;
        auto& conditions = array_at(object_at(stored, "status"), "conditions");
        set_condition(conditions, "DisruptionTarget", "True", "DeletionByTaintManager",
                      "Taint manager: deleting due to NoExecute taint", now);
        return stored;
      });
  context_.caches.pods.observe(marked);
  if (auto current = context_.caches.pods.get(marked->key())) delete_pod(context_, *current);
}

}  // namespace rg::sim::cluster
