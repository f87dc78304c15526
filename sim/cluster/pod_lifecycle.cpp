// Pod creation defaults and deletion (see pod_lifecycle.hpp).
#include "sim/cluster/pod_lifecycle.hpp"

#include <boost/json/value.hpp>

#include <stdexcept>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

void set_default(json::object& object, std::string_view key, json::value value) {
  if (!object.contains(key)) object[key] = std::move(value);
}

void apply_container_defaults(json::object& container) {
  set_default(container, "terminationMessagePath", "/dev/termination-log");
  set_default(container, "terminationMessagePolicy", "File");
  const std::string image = string_at(container, "image");
  const auto slash = image.rfind('/');
  const bool tagged = image.find(':', slash == std::string::npos ? 0 : slash) != std::string::npos;
  const bool latest = !tagged || image.ends_with(":latest");
  set_default(container, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
  set_default(container, "resources", json::object());
}

}  // namespace

void apply_pod_defaults(json::object& spec) {
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "serviceAccountName", "default");
  set_default(spec, "serviceAccount", json::string(string_at(spec, "serviceAccountName")));
  set_default(spec, "securityContext", json::object());
  set_default(spec, "schedulerName", "default-scheduler");
  set_default(spec, "enableServiceLinks", true);
  set_default(spec, "priority", 0);
  set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
  for (auto& container : array_at(spec, "containers"))
    if (auto* object = container.if_object()) apply_container_defaults(*object);
  auto& tolerations = array_at(spec, "tolerations");
  for (std::string_view key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool present = false;
    for (const auto& item : tolerations)
      if (const auto* toleration = item.if_object())
        present = present || (string_at(*toleration, "key") == key &&
                              string_at(*toleration, "effect") == "NoExecute");
    if (!present)
      tolerations.push_back(json::object{{"key", key},
                                         {"operator", "Exists"},
                                         {"effect", "NoExecute"},
                                         {"tolerationSeconds", 300}});
  }
}

json::object pod_from_template(const ReplicaSetView& replica_set) {
  const auto& rs = *replica_set.object;
  json::object metadata{{"generateName", rs.name + "-"}, {"namespace", rs.namespace_}};
  json::object spec;
  if (const auto* template_meta = find_object(replica_set.template_, "metadata")) {
    if (const auto* labels = find_object(*template_meta, "labels")) metadata["labels"] = *labels;
    if (const auto* annotations = find_object(*template_meta, "annotations"))
      metadata["annotations"] = *annotations;
  }
  if (const auto* template_spec = find_object(replica_set.template_, "spec")) spec = *template_spec;
  metadata["ownerReferences"] = json::array{json::object{{"apiVersion", "apps/v1"},
                                                         {"kind", "ReplicaSet"},
                                                         {"name", rs.name},
                                                         {"uid", rs.uid},
                                                         {"controller", true},
                                                         {"blockOwnerDeletion", true}}};
  apply_pod_defaults(spec);
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)},
                      {"status", json::object{{"phase", "Pending"}}}};
}

void delete_pod(Context& context, const PodView& pod) {
  const auto& object = *pod.object;
  auto current = context.store.get(context.types.pods, object.namespace_, object.name);
  if (current == nullptr || current->uid != object.uid) return;  // already gone
  const std::string now = now_time();
  auto result = context.store.update(context.types.pods, object.namespace_, object.name,
                                     [&](const StoredObject& current, json::object stored) {
                                       if (current.uid != object.uid)
                                         return stored;  // a new pod of the same name
                                       auto& metadata = object_at(stored, "metadata");
                                       if (!metadata.contains("deletionTimestamp")) {
                                         metadata["deletionTimestamp"] = now;
                                         metadata["deletionGracePeriodSeconds"] =
                                             int_at(object_at(stored, "spec"),
                                                    "terminationGracePeriodSeconds", 30);
                                       }
                                       return stored;
                                     });
  if (context.store.get(context.types.pods, object.namespace_, object.name) == nullptr)
    context.caches.pods.observe_deleted(std::move(result));
  else
    context.caches.pods.observe(std::move(result));
}

void remove_pod(Context& context, const PodView& pod) {
  const auto& object = *pod.object;
  auto current = context.store.get(context.types.pods, object.namespace_, object.name);
  if (current == nullptr || current->uid != object.uid) return;  // already gone
  auto last = context.store.remove(
      context.types.pods, object.namespace_, object.name, [&](const StoredObject& now) {
        if (now.uid != object.uid)
          throw std::runtime_error("pod " + object.name + " was replaced meanwhile");
      });
  context.caches.pods.observe_deleted(std::move(last));
}

}  // namespace rg::sim::cluster
