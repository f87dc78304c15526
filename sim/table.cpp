// The Table encoder for `kubectl get`: printer columns of the built-in printers (KK
// pkg/printers/internalversion/printers.go) for nodes, pods, deployments, replicasets,
// poddisruptionbudgets, namespaces, leases and horizontalpodautoscalers; Name + Created At for
// everything else (the default table convertor).
#include <fmt/format.h>
#include <boost/json.hpp>

#include <cctype>
#include <chrono>
#include <ctime>

#include "sim/json_fields.hpp"
#include "sim/object_encoder.hpp"
#include "sim/version_conversion.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

struct Column {
  std::string_view name;
  std::string_view type;
  std::string_view format;
  int priority;
  std::string_view description;
};

std::string string_at(const json::object* parent, std::string_view key) {
  return parent != nullptr ? rg::sim::string_at(*parent, key) : std::string();
}

std::int64_t int_at(const json::object* parent, std::string_view key) {
  return parent != nullptr ? rg::sim::int_at(*parent, key) : 0;
}

const json::array* array_at(const json::object* parent, std::string_view key) {
  return parent != nullptr ? find_array(*parent, key) : nullptr;
}

// apimachinery's duration.HumanDuration.
std::string human_duration(std::int64_t seconds) {
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  std::int64_t minutes = seconds / 60;
  if (minutes < 10)
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  if (minutes < 180) return fmt::format("{}m", minutes);
  std::int64_t hours = minutes / 60;
  if (hours < 8)
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < std::int64_t{24} * 8)
    return hours % 24 == 0 ? fmt::format("{}d", hours / 24)
                           : fmt::format("{}d{}h", hours / 24, hours % 24);
  if (hours < std::int64_t{24} * 365 * 2) return fmt::format("{}d", hours / 24);
  std::int64_t years = hours / 24 / 365;
  std::int64_t days = (hours / 24) % 365;
  if (hours < std::int64_t{24} * 365 * 8)
    return days == 0 ? fmt::format("{}y", years) : fmt::format("{}y{}d", years, days);
  return fmt::format("{}y", years);
}

std::string age(const json::object* metadata) {
  std::string stamp = string_at(metadata, "creationTimestamp");
  std::tm tm{};
  if (stamp.empty() || strptime(stamp.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr)
    return "<unknown>";
  return human_duration(static_cast<std::int64_t>(std::time(nullptr) - timegm(&tm)));
}

std::string condition_status(const json::object* status, std::string_view type) {
  if (const auto* conditions = array_at(status, "conditions"))
    for (const auto& c : *conditions)
      if (c.is_object() && string_at(&c.get_object(), "type") == type)
        return string_at(&c.get_object(), "status");
  return {};
}

std::vector<Column> columns_for(const ResourceType& type) {
  constexpr std::string_view kName = "Name must be unique within a namespace.";
  constexpr std::string_view kAge =
      "CreationTimestamp is a timestamp representing the server time when this object was created.";
  const std::string& r = type.resource;
  if (type.group.empty() && r == "pods")
    return {{"Name", "string", "name", 0, kName},
            {"Ready", "string", "", 0,
             "The aggregate readiness state of this pod for accepting traffic."},
            {"Status", "string", "", 0, "The aggregate status of the containers in this pod."},
            {"Restarts", "string", "", 0,
             "The number of times the containers in this pod have been restarted and when the last "
             "container in this pod has restarted."},
            {"Age", "string", "", 0, kAge},
            {"IP", "string", "", 1,
             "IP address allocated to the pod. Routable at least within the cluster. Empty if not "
             "yet allocated."},
            {"Node", "string", "", 1,
             "NodeName is a request to schedule this pod onto a specific node."},
            {"Nominated Node", "string", "", 1,
             "nominatedNodeName is set when this pod preempts other pods on the node."},
            {"Readiness Gates", "string", "", 1,
             "If specified, all readiness gates will be evaluated for pod readiness."}};
  if (type.group.empty() && r == "nodes")
    return {
        {"Name", "string", "name", 0, kName},
        {"Status", "string", "", 0, "The status of the node"},
        {"Roles", "string", "", 0, "The roles of the node"},
        {"Age", "string", "", 0, kAge},
        {"Version", "string", "", 0, "Kubelet Version reported by the node."},
        {"Internal-IP", "string", "", 1, "List of addresses reachable to the node."},
        {"External-IP", "string", "", 1, "List of addresses reachable to the node."},
        {"OS-Image", "string", "", 1, "OS Image reported by the node from /etc/os-release."},
        {"Kernel-Version", "string", "", 1, "Kernel Version reported by the node from 'uname -r'."},
        {"Container-Runtime", "string", "", 1,
         "ContainerRuntime Version reported by the node through runtime remote API."}};
  if (type.group == "apps" && r == "deployments")
    return {{"Name", "string", "name", 0, kName},
            {"Ready", "string", "", 0, "Number of the pod with ready state"},
            {"Up-to-date", "integer", "", 0,
             "Total number of non-terminated pods targeted by this deployment that have the "
             "desired template spec."},
            {"Available", "integer", "", 0,
             "Total number of available pods (ready for at least minReadySeconds) targeted by this "
             "deployment."},
            {"Age", "string", "", 0, kAge},
            {"Containers", "string", "", 1, "Names of each container in the template."},
            {"Images", "string", "", 1, "Images referenced by each container in the template."},
            {"Selector", "string", "", 1,
             "Label selector for pods. Existing ReplicaSets whose pods are selected by this will "
             "be the ones affected by this deployment."}};
  if (type.group == "apps" && r == "replicasets")
    return {
        {"Name", "string", "name", 0, kName},
        {"Desired", "integer", "", 0, "Replicas is the number of desired replicas."},
        {"Current", "integer", "", 0, "Replicas is the most recently observed number of replicas."},
        {"Ready", "integer", "", 0, "The number of ready replicas for this replica set."},
        {"Age", "string", "", 0, kAge},
        {"Containers", "string", "", 1, "Names of each container in the template."},
        {"Images", "string", "", 1, "Images referenced by each container in the template."},
        {"Selector", "string", "", 1,
         "Selector is a label query over pods that should match the replica count."}};
  if (type.group == "policy" && r == "poddisruptionbudgets")
    return {
        {"Name", "string", "name", 0, kName},
        {"Min Available", "string", "", 0, "The minimum number of pods that must be available."},
        {"Max Unavailable", "string", "", 0, "The maximum number of pods that may be unavailable."},
        {"Allowed Disruptions", "integer", "", 0,
         "Calculated number of pods that may be disrupted at this time."},
        {"Age", "string", "", 0, kAge}};
  if (type.group.empty() && r == "namespaces")
    return {{"Name", "string", "name", 0, kName},
            {"Status", "string", "", 0, "The status of the namespace"},
            {"Age", "string", "", 0, kAge}};
  if (type.group == "coordination.k8s.io" && r == "leases")
    return {{"Name", "string", "name", 0, kName},
            {"Holder", "string", "", 0, "The holder of the lease."},
            {"Age", "string", "", 0, kAge}};
  if (type.group == "autoscaling" && r == "horizontalpodautoscalers")
    return {{"Name", "string", "name", 0, kName},
            {"Reference", "string", "", 0,
             "scaleTargetRef points to the target resource to scale, and is used to the pods for "
             "which metrics should be collected, as well as to actually change the replica count."},
            {"Targets", "string", "", 0,
             "metrics contains the specifications for which to use to calculate the desired "
             "replica count (the maximum replica count across all metrics will be used).  The "
             "desired replica count is calculated multiplying the ratio between the target value "
             "and the current value by the current number of pods.  Ergo, metrics used must "
             "decrease as the pod count is increased, and vice-versa.  See the individual metric "
             "source types for more information about how each type of metric must respond. If "
             "not set, the default metric will be set to 80% average CPU utilization."},
            {"MinPods", "string", "", 0,
             "minReplicas is the lower limit for the number of replicas to which the autoscaler "
             "can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
             "feature gate HPAScaleToZero is enabled and at least one Object or External metric "
             "is configured.  Scaling is active as long as at least one metric value is "
             "available."},
            {"MaxPods", "string", "", 0,
             "maxReplicas is the upper limit for the number of replicas to which the autoscaler "
             "can scale up. It cannot be less that minReplicas."},
            {"Replicas", "string", "", 0,
             "currentReplicas is current number of replicas of pods managed by this autoscaler, "
             "as last seen by the autoscaler."},
            {"Age", "string", "", 0, kAge}};
  return {{"Name", "string", "name", 0, kName}, {"Created At", "date", "", 0, kAge}};
}

std::string joined_containers(const json::object* spec, std::string_view field) {
  std::vector<std::string> values;
  const auto* tmpl = find_object(*spec, "template");
  const auto* tspec = tmpl != nullptr ? find_object(*tmpl, "spec") : nullptr;
  if (const auto* containers = array_at(tspec, "containers"))
    for (const auto& c : *containers)
      if (c.is_object()) values.push_back(string_at(&c.get_object(), field));
  return fmt::format("{}", fmt::join(values, ","));
}

std::string selector_text(const json::object* spec) {
  const auto* selector = spec != nullptr ? find_object(*spec, "selector") : nullptr;
  const auto* labels = selector != nullptr ? find_object(*selector, "matchLabels") : nullptr;
  std::vector<std::string> parts;
  if (labels != nullptr)
    for (const auto& [k, v] : *labels)
      if (v.is_string())
        parts.push_back(
            fmt::format("{}={}", std::string_view(k), std::string_view(v.get_string())));
  return parts.empty() ? "<none>" : fmt::format("{}", fmt::join(parts, ","));
}

json::array pod_cells(const json::object& pod, const json::object* metadata) {
  const auto* spec = find_object(pod, "spec");
  const auto* status = find_object(pod, "status");
  std::int64_t total = 0, ready = 0, restarts = 0;
  if (const auto* containers = array_at(spec, "containers"))
    total = static_cast<std::int64_t>(containers->size());
  std::string reason = string_at(status, "phase");
  if (auto r = string_at(status, "reason"); !r.empty()) reason = r;
  if (const auto* statuses = array_at(status, "containerStatuses")) {
    for (const auto& s : *statuses) {
      if (!s.is_object()) continue;
      const auto& cs = s.get_object();
      restarts += int_at(&cs, "restartCount");
      if (const auto* v = cs.if_contains("ready"); v != nullptr && v->is_bool() && v->get_bool())
        ++ready;
      const auto* state = find_object(cs, "state");
      if (state == nullptr) continue;
      if (const auto* waiting = find_object(*state, "waiting");
          waiting && !string_at(waiting, "reason").empty())
        reason = string_at(waiting, "reason");
      else if (const auto* term = find_object(*state, "terminated");
               term && !string_at(term, "reason").empty())
        reason = string_at(term, "reason");
    }
  }
  if (metadata != nullptr && metadata->contains("deletionTimestamp")) reason = "Terminating";
  std::string ip = string_at(status, "podIP");
  std::string node = string_at(spec, "nodeName");
  std::string nominated = string_at(status, "nominatedNodeName");
  return json::array{json::string(string_at(metadata, "name")),
                     fmt::format("{}/{}", ready, total),
                     reason,
                     std::to_string(restarts),
                     age(metadata),
                     ip.empty() ? "<none>" : ip,
                     node.empty() ? "<none>" : node,
                     nominated.empty() ? "<none>" : nominated,
                     "<none>"};
}

json::array node_cells(const json::object& node, const json::object* metadata) {
  const auto* spec = find_object(node, "spec");
  const auto* status = find_object(node, "status");
  std::string ready = condition_status(status, "Ready");
  // printNode: "Not" + the condition unless it is True (Unknown too); Unknown without one.
  std::string state = ready == "True" ? "Ready" : ready.empty() ? "Unknown" : "NotReady";
  if (const auto* u = spec ? spec->if_contains("unschedulable") : nullptr;
      u && u->is_bool() && u->get_bool())
    state += ",SchedulingDisabled";
  std::vector<std::string> roles;
  if (const auto* labels = metadata ? find_object(*metadata, "labels") : nullptr)
    for (const auto& [key, value] : *labels)
      if (std::string_view k = key; k.starts_with("node-role.kubernetes.io/"))
        roles.emplace_back(k.substr(24));
  std::string internal = "<none>", external = "<none>";
  if (const auto* addresses = array_at(status, "addresses"))
    for (const auto& a : *addresses) {
      if (!a.is_object()) continue;
      auto t = string_at(&a.get_object(), "type");
      if (t == "InternalIP") internal = string_at(&a.get_object(), "address");
      if (t == "ExternalIP") external = string_at(&a.get_object(), "address");
    }
  const auto* info = status ? find_object(*status, "nodeInfo") : nullptr;
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("<unknown>") : s; };
  return json::array{json::string(string_at(metadata, "name")),
                     state,
                     roles.empty() ? "<none>" : fmt::format("{}", fmt::join(roles, ",")),
                     age(metadata),
                     string_at(info, "kubeletVersion"),
                     internal,
                     external,
                     or_unknown(string_at(info, "osImage")),
                     or_unknown(string_at(info, "kernelVersion")),
                     or_unknown(string_at(info, "containerRuntimeVersion"))};
}

// A resource.Quantity as stored (a string; a number when a client wrote one).
std::string quantity_at(const json::object* parent, std::string_view key) {
  if (parent == nullptr) return "0";
  const auto* value = parent->if_contains(key);
  if (value == nullptr) return "0";
  if (value->is_string()) return std::string(value->get_string());
  return value->is_number() ? json::serialize(*value) : std::string("0");
}

// One autoscaling/v2 metric as printers.go formatHPAMetrics writes it: "current/target", with
// the resource name in front for (container) resource metrics and "(avg)" for average values of
// object and external metrics.
std::string hpa_metric(const json::object& spec, const json::object* status) {
  const std::string type = string_at(&spec, "type");
  const std::string field =
      type.empty() ? std::string()
                   : std::string(1, static_cast<char>(std::tolower(type[0]))) + type.substr(1);
  const auto* source = find_object(spec, field);
  const auto* target = source != nullptr ? find_object(*source, "target") : nullptr;
  const auto* observed = status != nullptr && string_at(status, "type") == type
                             ? find_object(*status, field)
                             : nullptr;
  const auto* current = observed != nullptr ? find_object(*observed, "current") : nullptr;
  const bool average = target != nullptr && target->contains("averageValue");
  std::string now = "<unknown>";
  if (type == "External" || type == "Object") {
    if (average) {
      if (current != nullptr && current->contains("averageValue"))
        now = quantity_at(current, "averageValue");
      return fmt::format("{}/{} (avg)", now, quantity_at(target, "averageValue"));
    }
    if (observed != nullptr) now = quantity_at(current, "value");
    return fmt::format("{}/{}", now, quantity_at(target, "value"));
  }
  if (type == "Pods") {
    if (observed != nullptr) now = quantity_at(current, "averageValue");
    return fmt::format("{}/{}", now, quantity_at(target, "averageValue"));
  }
  if (type == "Resource" || type == "ContainerResource") {
    const std::string name = string_at(source, "name");
    if (average) {
      if (observed != nullptr) now = quantity_at(current, "averageValue");
      return fmt::format("{}: {}/{}", name, now, quantity_at(target, "averageValue"));
    }
    if (current != nullptr && current->contains("averageUtilization"))
      now = fmt::format("{}%", int_at(current, "averageUtilization"));
    const std::string goal = target != nullptr && target->contains("averageUtilization")
                                 ? fmt::format("{}%", int_at(target, "averageUtilization"))
                                 : std::string("<auto>");
    return fmt::format("{}: {}/{}", name, now, goal);
  }
  return "<unknown type>";
}

// printers.go formatHPAMetrics: the first two metrics, then "+ N more...".
std::string hpa_targets(const json::object* spec, const json::object* status) {
  const auto* metrics = array_at(spec, "metrics");
  if (metrics == nullptr || metrics->empty()) return "<none>";
  const auto* observed = array_at(status, "currentMetrics");
  constexpr std::size_t kShown = 2;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < metrics->size() && i < kShown; ++i) {
    const auto* current =
        observed != nullptr && i < observed->size() ? (*observed)[i].if_object() : nullptr;
    if (const auto* metric = (*metrics)[i].if_object())
      shown.push_back(hpa_metric(*metric, current));
  }
  std::string text = fmt::format("{}", fmt::join(shown, ", "));
  if (metrics->size() > kShown) text += fmt::format(" + {} more...", metrics->size() - kShown);
  return text;
}

json::array hpa_cells(const json::object* metadata, const json::object* spec,
                      const json::object* status) {
  const auto* target = spec != nullptr ? find_object(*spec, "scaleTargetRef") : nullptr;
  const bool has_min = spec != nullptr && spec->contains("minReplicas");
  return json::array{json::string(string_at(metadata, "name")),
                     fmt::format("{}/{}", string_at(target, "kind"), string_at(target, "name")),
                     hpa_targets(spec, status),
                     has_min ? std::to_string(int_at(spec, "minReplicas")) : std::string("<unset>"),
                     int_at(spec, "maxReplicas"),
                     int_at(status, "currentReplicas"),
                     age(metadata)};
}

json::array cells_for(const ResourceType& type, const json::object& object) {
  const auto* metadata = find_object(object, "metadata");
  const auto* spec = find_object(object, "spec");
  const auto* status = find_object(object, "status");
  const std::string& r = type.resource;
  json::string name(string_at(metadata, "name"));
  if (type.group.empty() && r == "pods") return pod_cells(object, metadata);
  if (type.group.empty() && r == "nodes") return node_cells(object, metadata);
  if (type.group == "apps" && (r == "deployments" || r == "replicasets") && spec != nullptr) {
    json::array cells{name};
    if (r == "deployments") {
      cells.push_back(json::string(
          fmt::format("{}/{}", int_at(status, "readyReplicas"), int_at(spec, "replicas"))));
      cells.push_back(int_at(status, "updatedReplicas"));
      cells.push_back(int_at(status, "availableReplicas"));
    } else {
      cells.push_back(int_at(spec, "replicas"));
      cells.push_back(int_at(status, "replicas"));
      cells.push_back(int_at(status, "readyReplicas"));
    }
    cells.push_back(json::string(age(metadata)));
    cells.push_back(json::string(joined_containers(spec, "name")));
    cells.push_back(json::string(joined_containers(spec, "image")));
    cells.push_back(json::string(selector_text(spec)));
    return cells;
  }
  if (type.group == "policy" && r == "poddisruptionbudgets") {
    // printPodDisruptionBudget: an unset bound prints N/A.
    auto bound = [&](std::string_view key) -> json::value {
      const auto* value = spec != nullptr ? spec->if_contains(key) : nullptr;
      if (value == nullptr || value->is_null()) return json::string("N/A");
      if (value->is_string()) return value->get_string();
      return json::string(json::serialize(*value));
    };
    return json::array{name, bound("minAvailable"), bound("maxUnavailable"),
                       int_at(status, "disruptionsAllowed"), json::string(age(metadata))};
  }
  if (type.group.empty() && r == "namespaces")
    return json::array{name, json::string(string_at(status, "phase")), json::string(age(metadata))};
  if (type.group == "coordination.k8s.io" && r == "leases") {
    std::string holder = string_at(spec, "holderIdentity");
    return json::array{name, json::string(holder.empty() ? "<none>" : holder),
                       json::string(age(metadata))};
  }
  if (type.group == "autoscaling" && r == "horizontalpodautoscalers")
    return hpa_cells(metadata, spec, status);
  return json::array{name, json::string(string_at(metadata, "creationTimestamp"))};
}

class TableEncoder final : public ObjectEncoder {
 public:
  TableEncoder(const ResourceType& type, std::string api_version, std::string include_object)
      : type_(type),
        api_version_(std::move(api_version)),
        include_object_(std::move(include_object)) {
    json::array definitions;
    for (const auto& c : columns_for(type))
      definitions.push_back(json::object{{"name", c.name},
                                         {"type", c.type},
                                         {"format", c.format},
                                         {"description", c.description},
                                         {"priority", c.priority}});
    column_definitions_ = json::serialize(definitions);
  }

  std::string list_header(std::uint64_t rv, std::string_view continue_token,
                          std::optional<std::int64_t> remaining) override {
    return fmt::format(R"({{"kind":"Table","apiVersion":"{}",{},"columnDefinitions":{},"rows":[)",
                       api_version_, list_metadata(rv, continue_token, remaining),
                       column_definitions_);
  }

  void list_item(const ObjectPtr& object, ChunkBuilder& out) override {
    out.add_owned(row(*object));
  }

  void watch_event(std::string_view type, const ObjectPtr& object, ChunkBuilder& out) override {
    // Only the first event of a watch carries the column definitions.
    std::string_view definitions = first_event_ ? std::string_view(column_definitions_) : "[]";
    first_event_ = false;
    out.add_owned(
        fmt::format(
            R"({{"type":"{}","object":{{"kind":"Table","apiVersion":"{}","metadata":{{"resourceVersion":"{}"}},"columnDefinitions":{},"rows":[{}]}}}})",
            type, api_version_, object->resource_version, definitions, row(*object)) +
        "\n");
  }

 private:
  std::string row(const StoredObject& stored) {
    // Cells come from the storage version (`kubectl get hpa.v1.autoscaling` prints the same
    // columns as v2); the object is shown in the requested one.
    json::object object = convert_to(type_, stored.parse());
    json::array cells = type_.storage != nullptr
                            ? cells_for(*type_.storage, convert_to(*type_.storage, object))
                            : cells_for(type_, object);
    json::object row{{"cells", std::move(cells)}};
    if (include_object_ == "Object") {
      row["object"] = std::move(object);
    } else if (include_object_ != "None") {
      row["object"] = json::object{{"kind", "PartialObjectMetadata"},
                                   {"apiVersion", "meta.k8s.io/v1"},
                                   {"metadata", object["metadata"]}};
    }
    return json::serialize(row);
  }

  const ResourceType& type_;
  std::string api_version_;
  std::string include_object_;
  std::string column_definitions_;
  bool first_event_ = true;
};

}  // namespace

std::unique_ptr<ObjectEncoder> make_table_encoder(const ResourceType& type,
                                                  std::string table_api_version,
                                                  std::string include_object) {
  return std::make_unique<TableEncoder>(type, std::move(table_api_version),
                                        std::move(include_object));
}

}  // namespace rg::sim
