// The built-in resource table: what a 1.35 API server lists in discovery for the kinds kube-sim
// stores (specialised behaviour lives in the registry; everything else is stored generically).
#include "sim/resource_table.hpp"

#include "sim/wire_form.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace rg::sim {
namespace {

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kSubVerbs = {"get", "patch", "update"};

SubresourceType status_of(const std::string& group, const std::string& kind) {
  return {"status", group, "v1", kind, kSubVerbs};
}

SubresourceType scale() { return {"scale", "autoscaling", "v1", "Scale", kSubVerbs}; }

ResourceType make(std::string group, std::string resource, std::string singular, std::string kind,
                  bool namespaced, std::vector<std::string> short_names = {}) {
  ResourceType type;
  type.group = std::move(group);
  type.version = "v1";
  type.resource = std::move(resource);
  type.singular = std::move(singular);
  type.kind = std::move(kind);
  type.namespaced = namespaced;
  type.short_names = std::move(short_names);
  type.verbs = kAllVerbs;
  return type;
}

std::vector<ResourceType> builtin_types() {
  std::vector<ResourceType> types;
  auto add = [&](ResourceType type) -> ResourceType& {
    return types.emplace_back(std::move(type));
  };

  auto& namespaces = add(make("", "namespaces", "namespace", "Namespace", false, {"ns"}));
  namespaces.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  namespaces.subresources = {status_of("", "Namespace")};
  namespaces.selectable_fields = {"status.phase"};
  auto& nodes = add(make("", "nodes", "node", "Node", false, {"no"}));
  nodes.subresources = {status_of("", "Node")};
  nodes.selectable_fields = {"spec.unschedulable"};
  auto& pods = add(make("", "pods", "pod", "Pod", true, {"po"}));
  pods.categories = {"all"};
  pods.subresources = {{"binding", "", "v1", "Binding", {"create"}},
                       {"eviction", "policy", "v1", "Eviction", {"create"}},
                       status_of("", "Pod")};
  pods.selectable_fields = {
      "spec.nodeName",    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase",       "status.podIP",       "status.nominatedNodeName"};
  auto& events = add(make("", "events", "event", "Event", true, {"ev"}));
  events.selectable_fields = {"involvedObject.kind",
                              "involvedObject.namespace",
                              "involvedObject.name",
                              "involvedObject.uid",
                              "involvedObject.apiVersion",
                              "involvedObject.resourceVersion",
                              "involvedObject.fieldPath",
                              "reason",
                              "reportingComponent",
                              "source",
                              "type"};
  for (std::string_view field : {"kind", "namespace", "name", "uid"})
    events.field_label_aliases.emplace_back("regarding." + std::string(field),
                                            "involvedObject." + std::string(field));
  add(make("", "configmaps", "configmap", "ConfigMap", true, {"cm"}));
  auto& secrets = add(make("", "secrets", "secret", "Secret", true));
  secrets.selectable_fields = {"type"};
  auto& service_accounts =
      add(make("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}));
  service_accounts.subresources = {
      {"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}}};
  auto& services = add(make("", "services", "service", "Service", true, {"svc"}));
  services.categories = {"all"};
  services.subresources = {status_of("", "Service")};
  add(make("", "endpoints", "endpoints", "Endpoints", true, {"ep"}));
  auto& pvcs = add(make("", "persistentvolumeclaims", "persistentvolumeclaim",
                        "PersistentVolumeClaim", true, {"pvc"}));
  pvcs.subresources = {status_of("", "PersistentVolumeClaim")};
  auto& pvs =
      add(make("", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"}));
  pvs.subresources = {status_of("", "PersistentVolume")};

  struct Workload {
    const char* resource;
    const char* singular;
    const char* kind;
    const char* short_name;
  };
  for (const auto& [resource, singular, kind, shorts] :
       {Workload{"deployments", "deployment", "Deployment", "deploy"},
        Workload{"replicasets", "replicaset", "ReplicaSet", "rs"},
        Workload{"statefulsets", "statefulset", "StatefulSet", "sts"},
        Workload{"daemonsets", "daemonset", "DaemonSet", "ds"}}) {
    auto& type = add(make("apps", resource, singular, kind, true, {shorts}));
    type.categories = {"all"};
    type.subresources = {status_of("apps", kind)};
    if (type.resource != "daemonsets") type.subresources.insert(type.subresources.begin(), scale());
  }
  for (auto& type : types)
    if (type.resource == "replicasets") type.selectable_fields = {"status.replicas"};

  // Stored and watched only: no autoscaling controller acts on them (status stays as written).
  auto& hpas = add(make("autoscaling", "horizontalpodautoscalers", "horizontalpodautoscaler",
                        "HorizontalPodAutoscaler", true, {"hpa"}));
  hpas.version = "v2";
  hpas.categories = {"all"};
  hpas.subresources = {{"status", "autoscaling", "v2", "HorizontalPodAutoscaler", kSubVerbs}};
  // The same objects through autoscaling/v1, converted on every read and write
  // (sim/hpa_conversion); listed after v2, which stays the group's preferred version.
  auto hpas_v1 = hpas;
  hpas_v1.version = "v1";
  hpas_v1.storage_version = "v2";
  hpas_v1.subresources = {status_of("autoscaling", "HorizontalPodAutoscaler")};
  add(std::move(hpas_v1));

  auto& jobs = add(make("batch", "jobs", "job", "Job", true));
  jobs.categories = {"all"};
  jobs.subresources = {status_of("batch", "Job")};
  auto& cronjobs = add(make("batch", "cronjobs", "cronjob", "CronJob", true, {"cj"}));
  cronjobs.categories = {"all"};
  cronjobs.subresources = {status_of("batch", "CronJob")};

  add(make("coordination.k8s.io", "leases", "lease", "Lease", true));
  auto& new_events = add(make("events.k8s.io", "events", "event", "Event", true, {"ev"}));
  new_events.selectable_fields = {
      "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "reason", "type"};
  // One store with core/v1 Events, converted on every read and write (sim/event_conversion).
  new_events.storage_group = "";
  new_events.storage_version = "v1";
  auto& pdbs = add(make("policy", "poddisruptionbudgets", "poddisruptionbudget",
                        "PodDisruptionBudget", true, {"pdb"}));
  pdbs.subresources = {status_of("policy", "PodDisruptionBudget")};
  auto& ingresses =
      add(make("networking.k8s.io", "ingresses", "ingress", "Ingress", true, {"ing"}));
  ingresses.subresources = {status_of("networking.k8s.io", "Ingress")};
  add(make("networking.k8s.io", "networkpolicies", "networkpolicy", "NetworkPolicy", true,
           {"netpol"}));
  // Answered by sim/auth from the requesting user, never stored.
  auto& self_reviews = add(make("authentication.k8s.io", "selfsubjectreviews", "selfsubjectreview",
                                "SelfSubjectReview", false));
  self_reviews.verbs = {"create"};
  auto& access_reviews = add(make("authorization.k8s.io", "selfsubjectaccessreviews",
                                  "selfsubjectaccessreview", "SelfSubjectAccessReview", false));
  access_reviews.verbs = {"create"};
  auto& rules_reviews = add(make("authorization.k8s.io", "selfsubjectrulesreviews",
                                 "selfsubjectrulesreview", "SelfSubjectRulesReview", false));
  rules_reviews.verbs = {"create"};
  // The reviews a delegating server (an operator's secure /metrics) asks about others.
  auto& token_reviews =
      add(make("authentication.k8s.io", "tokenreviews", "tokenreview", "TokenReview", false));
  token_reviews.verbs = {"create"};
  auto& subject_reviews = add(make("authorization.k8s.io", "subjectaccessreviews",
                                   "subjectaccessreview", "SubjectAccessReview", false));
  subject_reviews.verbs = {"create"};
  // Stored generically; each definition's versions become served types (Registry).
  auto& definitions =
      add(make("apiextensions.k8s.io", "customresourcedefinitions", "customresourcedefinition",
               "CustomResourceDefinition", false, {"crd", "crds"}));
  definitions.categories = {"api-extensions"};
  definitions.subresources = {status_of("apiextensions.k8s.io", "CustomResourceDefinition")};
  const std::string rbac = "rbac.authorization.k8s.io";
  add(make(rbac, "roles", "role", "Role", true));
  add(make(rbac, "rolebindings", "rolebinding", "RoleBinding", true));
  add(make(rbac, "clusterroles", "clusterrole", "ClusterRole", false));
  add(make(rbac, "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false));
  return types;
}

}  // namespace

std::string ResourceType::group_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::group_resource() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string ResourceType::group_kind() const { return group.empty() ? kind : kind + "." + group; }

const SubresourceType* ResourceType::subresource(std::string_view name) const {
  for (const auto& sub : subresources)
    if (sub.name == name) return &sub;
  return nullptr;
}

const ResourceTable& ResourceTable::builtin() {
  static const ResourceTable table(builtin_types());
  return table;
}

ResourceTable::ResourceTable(std::vector<ResourceType> types) : types_(std::move(types)) {
  for (auto& type : types_) {
    type.type_meta_prefix =
        R"({"kind":")" + type.kind + R"(","apiVersion":")" + type.group_version() + "\",";
    type.wire = wire_type(type.group, type.version, type.kind);
    auto it = std::find_if(group_versions_.begin(), group_versions_.end(), [&](const auto& gv) {
      return gv.group == type.group && gv.version == type.version;
    });
    if (it == group_versions_.end())
      it =
          group_versions_.insert(group_versions_.end(), GroupVersion{type.group, type.version, {}});
    it->resources.push_back(&type);
  }
  for (auto& type : types_)
    if (!type.storage_version.empty())
      type.storage =
          find(type.storage_group.value_or(type.group), type.storage_version, type.resource);
}

const ResourceType& ResourceTable::builtin_type(std::string_view group, std::string_view version,
                                                std::string_view resource) {
  const auto* type = builtin().find(group, version, resource);
  if (type == nullptr)
    throw std::logic_error("kube-sim: the resource table lacks " + std::string(resource));
  return *type;
}

const ResourceType* ResourceTable::find(std::string_view group, std::string_view version,
                                        std::string_view resource) const {
  for (const auto& type : types_)
    if (type.group == group && type.version == version && type.resource == resource) return &type;
  return nullptr;
}

const ResourceType* ResourceTable::find_kind(std::string_view group, std::string_view kind) const {
  for (const auto& type : types_)
    if (type.group == group && type.kind == kind) return &type;
  return nullptr;
}

}  // namespace rg::sim
