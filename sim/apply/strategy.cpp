// The per-kind rules of a write (the API server's registry strategies, reduced to what kube-sim's
// resources need): see strategy.hpp.
#include "sim/apply/strategy.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <vector>

#include "sim/api_error.hpp"
#include "sim/apply/autoscaling.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool is_dns_label(std::string_view name, bool letter_first) {
  if (name.empty() || name.size() > 63 || !is_alnum(name.back())) return false;
  if (letter_first ? !(name.front() >= 'a' && name.front() <= 'z') : !is_alnum(name.front()))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '-'; });
}

bool is_dns_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t start = 0;
  for (;;) {
    auto dot = name.find('.', start);
    auto label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || !is_alnum(label.front()) || !is_alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(), [](char c) { return is_alnum(c) || c == '-'; }))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

void set_default(json::object& object, std::string_view key, json::value value) {
  if (!object.contains(key)) object[key] = std::move(value);
}

bool is_horizontal_pod_autoscaler(const ResourceType& type) {
  return type.group == "autoscaling" && type.resource == "horizontalpodautoscalers";
}

}  // namespace

// The name rule of each kind (its strategy's ValidateObjectMeta name function): namespaces are
// RFC 1123 labels, services RFC 1035 labels, RBAC objects path segments ("system:discovery"),
// everything else RFC 1123 subdomains. Returns the error detail, "" when valid.
std::string name_problem(const ResourceType& type, std::string_view name) {
  if (type.group == "rbac.authorization.k8s.io") {
    if (name == "." || name == "..")
      return fmt::format("Invalid value: \"{}\": may not be '{}'", name, name);
    for (char c : {'/', '%'})
      if (name.find(c) != std::string_view::npos)
        return fmt::format("Invalid value: \"{}\": may not contain '{}'", name, c);
    return {};
  }
  if (type.group.empty() && type.resource == "namespaces") {
    if (is_dns_label(name, false)) return {};
    return fmt::format(
        "Invalid value: \"{}\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric character (e.g. "
        "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        name);
  }
  if (type.group.empty() && type.resource == "services") {
    if (is_dns_label(name, true)) return {};
    return fmt::format(
        "Invalid value: \"{}\": a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')",
        name);
  }
  if (is_dns_subdomain(name)) return {};
  return fmt::format(
      "Invalid value: \"{}\": a lowercase RFC 1123 subdomain must consist of lower case "
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      name);
}

// Defaults the API server applies (KK pkg/apis/*/v1/defaults.go), for the fields controllers
// and kubectl read.
void apply_defaults(const ResourceType& type, json::object& object) {
  if (is_horizontal_pod_autoscaler(type)) default_horizontal_pod_autoscaler(object);
  if (type.group == "apps" && (type.resource == "deployments" || type.resource == "replicasets" ||
                               type.resource == "statefulsets")) {
    auto& spec = object_at(object, "spec");
    set_default(spec, "replicas", 1);
    set_default(spec, "revisionHistoryLimit", 10);
    if (type.resource == "deployments") {
      set_default(spec, "progressDeadlineSeconds", 600);
      auto& strategy = object_at(spec, "strategy");
      set_default(strategy, "type", "RollingUpdate");
      if (string_at(strategy, "type") == "RollingUpdate") {
        auto& rolling = object_at(strategy, "rollingUpdate");
        set_default(rolling, "maxUnavailable", "25%");
        set_default(rolling, "maxSurge", "25%");
      }
    }
  }
  if (type.group.empty() && type.resource == "pods") {
    auto& spec = object_at(object, "spec");
    set_default(spec, "restartPolicy", "Always");
    set_default(spec, "terminationGracePeriodSeconds", 30);
    set_default(spec, "dnsPolicy", "ClusterFirst");
    set_default(spec, "serviceAccountName", "default");
    set_default(spec, "schedulerName", "default-scheduler");
    set_default(spec, "enableServiceLinks", true);
    set_default(spec, "priority", 0);
    // DefaultTolerationSeconds admission: tolerate not-ready/unreachable for 300 s.
    auto& tolerations = spec["tolerations"];
    if (!tolerations.is_array()) tolerations = json::array();
    for (std::string_view key :
         {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      bool present = false;
      for (const auto& toleration : tolerations.get_array())
        if (toleration.is_object() && string_at(toleration.get_object(), "key") == key &&
            string_at(toleration.get_object(), "effect") == "NoExecute")
          present = true;
      if (!present)
        tolerations.get_array().push_back(json::object{{"key", key},
                                                       {"operator", "Exists"},
                                                       {"effect", "NoExecute"},
                                                       {"tolerationSeconds", 300}});
    }
  }
}

bool is_definition(const ResourceType& type) {
  return type.group == "apiextensions.k8s.io" && type.resource == "customresourcedefinitions";
}

// Status a create may not set (PrepareForCreate of the workload, pod and HPA strategies).
void reset_status_on_create(const ResourceType& type, json::object& object) {
  if (type.group == "apps" || type.group == "batch") {
    object["status"] = json::object();
  } else if (is_horizontal_pod_autoscaler(type)) {
    // An empty autoscaling/v2 status: desiredReplicas is the one field without omitempty.
    object["status"] = json::object{{"desiredReplicas", 0}};
  } else if (type.group.empty() && type.resource == "pods") {
    object["status"] = json::object{{"phase", "Pending"}};
  } else if (type.group.empty() && type.resource == "namespaces") {
    object["status"] = json::object{{"phase", "Active"}};
    // The namespace strategy's PrepareForCreate: the "kubernetes" finalizer, which the
    // namespace controller removes once the namespace's content is gone.
    auto& finalizers = array_at(object_at(object, "spec"), "finalizers");
    if (std::find(finalizers.begin(), finalizers.end(), json::value("kubernetes")) ==
        finalizers.end())
      finalizers.emplace_back("kubernetes");
  }
}

void validate(const ResourceType& type, const json::object& object) {
  std::vector<FieldError> problems;
  const auto* metadata = find_object(object, "metadata");
  std::string name = metadata != nullptr ? string_at(*metadata, "name") : "";
  if (type.group == "apps" && type.resource != "daemonsets") {
    const auto* spec = find_object(object, "spec");
    if (spec == nullptr || find_object(*spec, "selector") == nullptr)
      problems.push_back({"FieldValueRequired", "spec.selector", "Required value"});
    if (spec != nullptr) {
      const auto* replicas = spec->if_contains("replicas");
      if (replicas != nullptr && replicas->is_int64() && replicas->get_int64() < 0)
        problems.push_back({"FieldValueInvalid", "spec.replicas",
                            fmt::format("Invalid value: {}: must be greater than or equal to 0",
                                        replicas->get_int64())});
    }
  }
  if (is_horizontal_pod_autoscaler(type)) validate_horizontal_pod_autoscaler(object, problems);
  if (!problems.empty()) throw errors::invalid(type.group, type.kind, name, problems);
}

// The grace period a DELETE gives a pod (the pod strategy's CheckGracefulDelete): the request's
// gracePeriodSeconds, else spec.terminationGracePeriodSeconds; 0 for a pod no kubelet runs
// (unscheduled) or that has finished.
std::int64_t pod_grace_period(const json::object& pod, std::optional<std::int64_t> requested) {
  const auto* spec = find_object(pod, "spec");
  const auto* status = find_object(pod, "status");
  if (spec == nullptr || string_at(*spec, "nodeName").empty()) return 0;
  const std::string phase = status != nullptr ? string_at(*status, "phase") : "";
  if (phase == "Succeeded" || phase == "Failed") return 0;
  std::int64_t grace = 30;
  if (const auto* value = spec->if_contains("terminationGracePeriodSeconds");
      value != nullptr && value->is_int64())
    grace = value->get_int64();
  if (requested) grace = *requested;
  return std::max<std::int64_t>(grace, 0);
}

}  // namespace rg::sim::apply
