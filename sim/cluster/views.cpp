// Parsing the controllers' views out of stored objects (see views.hpp).
#include "sim/cluster/views.hpp"

#include <boost/json/parse.hpp>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

json::object parse_body(const StoredObject& object) { return json::parse(object.body).as_object(); }

std::optional<ControllerRef> controller_of(const json::object& metadata) {
  if (const auto* refs = find_array(metadata, "ownerReferences"))
    for (const auto& ref : *refs)
      if (const auto* owner = ref.if_object()) {
        const auto* controller = owner->if_contains("controller");
        if (controller != nullptr && controller->is_bool() && controller->get_bool())
          return ControllerRef{string_at(*owner, "kind"), string_at(*owner, "name"),
                               string_at(*owner, "uid")};
      }
  return std::nullopt;
}

const json::object& member(const json::object& object, std::string_view key) {
  static const json::object kEmpty;
  const auto* found = find_object(object, key);
  return found != nullptr ? *found : kEmpty;
}

}  // namespace

bool tolerates(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (toleration.key.empty()) return toleration.operator_ == "Exists";  // tolerates everything
  if (toleration.key != taint.key) return false;
  if (toleration.operator_ == "Exists") return true;
  return toleration.value == taint.value;
}

bool PodView::tolerates_all(const std::vector<Taint>& taints, std::string_view effect) const {
  for (const auto& taint : taints) {
    if (taint.effect != effect) continue;
    bool tolerated = false;
    for (const auto& toleration : tolerations)
      tolerated = tolerated || tolerates(toleration, taint);
    if (!tolerated) return false;
  }
  return true;
}

bool PodView::selects(const StoredObject& node) const {
  for (const auto& [key, value] : node_selector) {
    auto label = node.labels.find(std::string_view(key));
    if (label == node.labels.end() || label->second != value) return false;
  }
  return true;
}

PodView PodView::from(ObjectPtr object) {
  PodView view;
  const json::object pod = parse_body(*object);
  const auto& metadata = member(pod, "metadata");
  const auto& spec = member(pod, "spec");
  const auto& status = member(pod, "status");
  view.node_name = string_at(spec, "nodeName");
  view.scheduler_name = string_at(spec, "schedulerName");
  view.phase = string_at(status, "phase");
  view.deleting = metadata.contains("deletionTimestamp");
  view.created = string_at(metadata, "creationTimestamp");
  view.controller = controller_of(metadata);
  if (const auto* conditions = find_array(status, "conditions"))
    if (const auto* ready = find_condition(*conditions, "Ready")) {
      view.ready = string_at(*ready, "status") == "True";
      view.ready_since = string_at(*ready, "lastTransitionTime");
    }
  if (const auto* statuses = find_array(status, "containerStatuses"))
    for (const auto& container : *statuses)
      if (const auto* c = container.if_object()) view.restart_count += int_at(*c, "restartCount");
  if (const auto* tolerations = find_array(spec, "tolerations"))
    for (const auto& item : *tolerations)
      if (const auto* t = item.if_object()) {
        Toleration toleration{string_at(*t, "key"), string_at(*t, "operator"),
                              string_at(*t, "value"), string_at(*t, "effect"), std::nullopt};
        if (toleration.operator_.empty()) toleration.operator_ = "Equal";
        if (const auto* seconds = t->if_contains("tolerationSeconds");
            seconds != nullptr && seconds->is_number())
          toleration.toleration_seconds = int_at(*t, "tolerationSeconds");
        view.tolerations.push_back(std::move(toleration));
      }
  if (const auto* selector = find_object(spec, "nodeSelector"))
    for (const auto& [key, value] : *selector)
      if (value.is_string()) view.node_selector.emplace_back(key, value.get_string());
  view.object = std::move(object);
  return view;
}

NodeView NodeView::from(ObjectPtr object) {
  NodeView view;
  const json::object node = parse_body(*object);
  const auto& spec = member(node, "spec");
  const auto& status = member(node, "status");
  if (const auto* conditions = find_array(status, "conditions"))
    if (const auto* ready = find_condition(*conditions, "Ready")) {
      view.ready = string_at(*ready, "status");
      view.heartbeat = string_at(*ready, "lastHeartbeatTime");
    }
  const auto* unschedulable = spec.if_contains("unschedulable");
  view.unschedulable =
      unschedulable != nullptr && unschedulable->is_bool() && unschedulable->get_bool();
  auto label = object->labels.find(kKubeletLabel);
  view.kubelet_stopped = label != object->labels.end() && label->second == kKubeletStopped;
  if (const auto* taints = find_array(spec, "taints"))
    for (const auto& item : *taints)
      if (const auto* t = item.if_object())
        view.taints.push_back({string_at(*t, "key"), string_at(*t, "value"),
                               string_at(*t, "effect"), string_at(*t, "timeAdded")});
  view.object = std::move(object);
  return view;
}

LeaseView LeaseView::from(ObjectPtr object) {
  LeaseView view;
  const json::object lease = parse_body(*object);
  view.renew_time = string_at(member(lease, "spec"), "renewTime");
  view.object = std::move(object);
  return view;
}

ReplicaSetView ReplicaSetView::from(ObjectPtr object) {
  ReplicaSetView view;
  const json::object rs = parse_body(*object);
  const auto& metadata = member(rs, "metadata");
  const auto& spec = member(rs, "spec");
  const auto& status = member(rs, "status");
  view.generation = int_at(metadata, "generation");
  view.controller = controller_of(metadata);
  const auto& annotations = member(metadata, "annotations");
  try {
    view.revision = std::stoll(string_at(annotations, "deployment.kubernetes.io/revision"));
  } catch (const std::exception&) {
    view.revision = 0;
  }
  view.annotations = annotations;
  view.replicas = int_at(spec, "replicas", 1);
  const auto* selector = spec.if_contains("selector");
  view.selector = selector != nullptr ? client::LabelSelector::from_json(*selector)
                                      : client::LabelSelector::nothing();
  view.template_ = member(spec, "template");
  view.status_replicas = int_at(status, "replicas");
  view.ready_replicas = int_at(status, "readyReplicas");
  view.available_replicas = int_at(status, "availableReplicas");
  view.observed_generation = int_at(status, "observedGeneration");
  view.object = std::move(object);
  return view;
}

DeploymentView DeploymentView::from(ObjectPtr object) {
  DeploymentView view;
  const json::object deployment = parse_body(*object);
  const auto& metadata = member(deployment, "metadata");
  const auto& spec = member(deployment, "spec");
  view.generation = int_at(metadata, "generation");
  view.replicas = int_at(spec, "replicas", 1);
  const auto* paused = spec.if_contains("paused");
  view.paused = paused != nullptr && paused->is_bool() && paused->get_bool();
  const auto& strategy = member(spec, "strategy");
  if (auto type = string_at(strategy, "type"); !type.empty()) view.strategy = type;
  const auto& rolling = member(strategy, "rollingUpdate");
  if (const auto* surge = rolling.if_contains("maxSurge")) view.max_surge = *surge;
  if (const auto* unavailable = rolling.if_contains("maxUnavailable"))
    view.max_unavailable = *unavailable;
  view.selector = member(spec, "selector");
  view.template_ = member(spec, "template");
  view.collision_count = int_at(member(deployment, "status"), "collisionCount");
  view.annotations = member(metadata, "annotations");
  view.object = std::move(object);
  return view;
}

}  // namespace rg::sim::cluster
