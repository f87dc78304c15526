// HorizontalPodAutoscaler autoscaling/v2 <-> autoscaling/v1 conversion (see hpa_conversion.hpp).
// Field orders follow the Go types, so annotations read as the API server writes them.
#include "sim/hpa_conversion.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <array>
#include <string_view>

#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

constexpr std::string_view kMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
constexpr std::string_view kCurrentMetricsAnnotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr std::string_view kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
constexpr std::string_view kBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
constexpr std::array kRoundTripAnnotations = {kMetricsAnnotation, kCurrentMetricsAnnotation,
                                              kConditionsAnnotation, kBehaviorAnnotation};
constexpr std::int64_t kDefaultCpuUtilization = 80;

const json::object kEmpty;

const json::object& object_or_empty(const json::object* object) {
  return object != nullptr ? *object : kEmpty;
}

// Sets to[to_key] = from[from_key] when that is present and not null.
void copy_field(const json::object* from, std::string_view from_key, json::object& to,
                std::string_view to_key) {
  if (from == nullptr) return;
  if (const auto* value = from->if_contains(from_key); value != nullptr && !value->is_null())
    to[to_key] = *value;
}

void copy_field(const json::object* from, std::string_view key, json::object& to) {
  copy_field(from, key, to, key);
}

// A v1 Quantity field without omitempty: "0" when absent.
json::value quantity_or_zero(const json::object* from, std::string_view key) {
  if (from != nullptr)
    if (const auto* value = from->if_contains(key); value != nullptr && !value->is_null())
      return *value;
  return "0";
}

bool present(const json::object* from, std::string_view key) {
  if (from == nullptr) return false;
  const auto* value = from->if_contains(key);
  return value != nullptr && !value->is_null();
}

json::object metric_identifier(const json::object* source, std::string_view name_key,
                               std::string_view selector_key) {
  json::object metric;
  copy_field(source, name_key, metric, "name");
  copy_field(source, selector_key, metric, "selector");
  return metric;
}

// --- spec.metrics: v2 MetricSpec <-> v1 MetricSpec (the v2beta1-like shape) ---

json::object metric_spec_to_v1(const json::object& metric) {
  json::object out{{"type", string_at(metric, "type")}};
  if (const auto* source = find_object(metric, "object")) {
    const auto* target = find_object(*source, "target");
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(source, "describedObject", v1, "target");
    copy_field(id, "name", v1, "metricName");
    v1["targetValue"] = quantity_or_zero(target, "value");
    copy_field(id, "selector", v1);
    copy_field(target, "averageValue", v1);
    out["object"] = std::move(v1);
  }
  if (const auto* source = find_object(metric, "pods")) {
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(id, "name", v1, "metricName");
    v1["targetAverageValue"] = quantity_or_zero(find_object(*source, "target"), "averageValue");
    copy_field(id, "selector", v1);
    out["pods"] = std::move(v1);
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    const auto* source = find_object(metric, kind);
    if (source == nullptr) continue;
    const auto* target = find_object(*source, "target");
    json::object v1;
    copy_field(source, "name", v1);
    copy_field(target, "averageUtilization", v1, "targetAverageUtilization");
    copy_field(target, "averageValue", v1, "targetAverageValue");
    copy_field(source, "container", v1);
    out[kind] = std::move(v1);
  }
  if (const auto* source = find_object(metric, "external")) {
    const auto* target = find_object(*source, "target");
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(id, "name", v1, "metricName");
    copy_field(id, "selector", v1, "metricSelector");
    copy_field(target, "value", v1, "targetValue");
    copy_field(target, "averageValue", v1, "targetAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

// A v2 MetricTarget from v1's value fields: the type is the one whose value is set.
json::object metric_target(const json::object* v1, std::string_view utilization_key,
                           std::string_view value_key, std::string_view average_key) {
  std::string_view type = "Value";
  if (present(v1, utilization_key))
    type = "Utilization";
  else if (present(v1, average_key) || value_key.empty())
    type = "AverageValue";
  json::object target{{"type", type}};
  if (type == "Value") copy_field(v1, value_key, target, "value");
  copy_field(v1, average_key, target, "averageValue");
  copy_field(v1, utilization_key, target, "averageUtilization");
  return target;
}

json::object metric_spec_to_v2(const json::object& metric) {
  json::object out{{"type", string_at(metric, "type")}};
  if (const auto* v1 = find_object(metric, "object")) {
    json::object v2;
    copy_field(v1, "target", v2, "describedObject");
    v2["target"] = metric_target(v1, "", "targetValue", "averageValue");
    v2["metric"] = metric_identifier(v1, "metricName", "selector");
    out["object"] = std::move(v2);
  }
  if (const auto* v1 = find_object(metric, "pods")) {
    out["pods"] = json::object{{"metric", metric_identifier(v1, "metricName", "selector")},
                               {"target", metric_target(v1, "", "", "targetAverageValue")}};
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    const auto* v1 = find_object(metric, kind);
    if (v1 == nullptr) continue;
    json::object v2;
    copy_field(v1, "name", v2);
    v2["target"] = metric_target(v1, "targetAverageUtilization", "", "targetAverageValue");
    copy_field(v1, "container", v2);
    out[kind] = std::move(v2);
  }
  if (const auto* v1 = find_object(metric, "external")) {
    out["external"] =
        json::object{{"metric", metric_identifier(v1, "metricName", "metricSelector")},
                     {"target", metric_target(v1, "", "targetValue", "targetAverageValue")}};
  }
  return out;
}

// --- status.currentMetrics: v2 MetricStatus <-> v1 MetricStatus ---

json::object metric_status_to_v1(const json::object& metric) {
  json::object out{{"type", string_at(metric, "type")}};
  if (const auto* source = find_object(metric, "object")) {
    const auto* current = find_object(*source, "current");
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(source, "describedObject", v1, "target");
    copy_field(id, "name", v1, "metricName");
    v1["currentValue"] = quantity_or_zero(current, "value");
    copy_field(id, "selector", v1);
    copy_field(current, "averageValue", v1);
    out["object"] = std::move(v1);
  }
  if (const auto* source = find_object(metric, "pods")) {
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(id, "name", v1, "metricName");
    v1["currentAverageValue"] = quantity_or_zero(find_object(*source, "current"), "averageValue");
    copy_field(id, "selector", v1);
    out["pods"] = std::move(v1);
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    const auto* source = find_object(metric, kind);
    if (source == nullptr) continue;
    const auto* current = find_object(*source, "current");
    json::object v1;
    copy_field(source, "name", v1);
    copy_field(current, "averageUtilization", v1, "currentAverageUtilization");
    v1["currentAverageValue"] = quantity_or_zero(current, "averageValue");
    copy_field(source, "container", v1);
    out[kind] = std::move(v1);
  }
  if (const auto* source = find_object(metric, "external")) {
    const auto* current = find_object(*source, "current");
    const auto* id = find_object(*source, "metric");
    json::object v1;
    copy_field(id, "name", v1, "metricName");
    copy_field(id, "selector", v1, "metricSelector");
    v1["currentValue"] = quantity_or_zero(current, "value");
    copy_field(current, "averageValue", v1, "currentAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

json::object metric_value(const json::object* v1, std::string_view value_key,
                          std::string_view average_key, std::string_view utilization_key) {
  json::object current;
  if (!value_key.empty()) copy_field(v1, value_key, current, "value");
  copy_field(v1, average_key, current, "averageValue");
  if (!utilization_key.empty()) copy_field(v1, utilization_key, current, "averageUtilization");
  return current;
}

json::object metric_status_to_v2(const json::object& metric) {
  json::object out{{"type", string_at(metric, "type")}};
  if (const auto* v1 = find_object(metric, "object")) {
    json::object v2{{"metric", metric_identifier(v1, "metricName", "selector")},
                    {"current", metric_value(v1, "currentValue", "averageValue", "")}};
    copy_field(v1, "target", v2, "describedObject");
    out["object"] = std::move(v2);
  }
  if (const auto* v1 = find_object(metric, "pods")) {
    out["pods"] = json::object{{"metric", metric_identifier(v1, "metricName", "selector")},
                               {"current", metric_value(v1, "", "currentAverageValue", "")}};
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    const auto* v1 = find_object(metric, kind);
    if (v1 == nullptr) continue;
    json::object v2;
    copy_field(v1, "name", v2);
    v2["current"] = metric_value(v1, "", "currentAverageValue", "currentAverageUtilization");
    copy_field(v1, "container", v2);
    out[kind] = std::move(v2);
  }
  if (const auto* v1 = find_object(metric, "external")) {
    out["external"] =
        json::object{{"metric", metric_identifier(v1, "metricName", "metricSelector")},
                     {"current", metric_value(v1, "currentValue", "currentAverageValue", "")}};
  }
  return out;
}

// --- spec.behavior <-> the internal HorizontalPodAutoscalerBehavior's JSON (Go field names,
// nulls for unset pointers) ---

json::value nullable(const json::object* from, std::string_view key) {
  if (from == nullptr) return nullptr;
  const auto* value = from->if_contains(key);
  return value != nullptr ? *value : json::value(nullptr);
}

json::value rules_to_internal(const json::object* rules) {
  if (rules == nullptr) return nullptr;
  json::value policies = nullptr;
  if (const auto* list = find_array(*rules, "policies")) {
    json::array out;
    for (const auto& policy : *list) {
      const auto* p = policy.if_object();
      out.push_back(json::object{{"Type", nullable(p, "type")},
                                 {"Value", nullable(p, "value")},
                                 {"PeriodSeconds", nullable(p, "periodSeconds")}});
    }
    policies = std::move(out);
  }
  return json::object{{"StabilizationWindowSeconds", nullable(rules, "stabilizationWindowSeconds")},
                      {"SelectPolicy", nullable(rules, "selectPolicy")},
                      {"Policies", std::move(policies)},
                      {"Tolerance", nullable(rules, "tolerance")}};
}

json::object rules_from_internal(const json::object& rules) {
  json::object out;
  copy_field(&rules, "StabilizationWindowSeconds", out, "stabilizationWindowSeconds");
  copy_field(&rules, "SelectPolicy", out, "selectPolicy");
  if (const auto* list = find_array(rules, "Policies")) {
    json::array policies;
    for (const auto& policy : *list) {
      json::object p;
      copy_field(policy.if_object(), "Type", p, "type");
      copy_field(policy.if_object(), "Value", p, "value");
      copy_field(policy.if_object(), "PeriodSeconds", p, "periodSeconds");
      policies.push_back(std::move(p));
    }
    out["policies"] = std::move(policies);
  }
  copy_field(&rules, "Tolerance", out, "tolerance");
  return out;
}

// The annotation's JSON document; 400 naming the annotation when it is not JSON of `shape`.
json::value annotation_json(const json::object& annotations, std::string_view key, bool array) {
  const auto* text = annotations.at(key).if_string();
  json::error_code ec;
  json::value value = text != nullptr ? json::parse(*text, ec) : json::value(nullptr);
  if (text == nullptr || ec || (array ? !value.is_array() : !value.is_object()))
    throw errors::bad_request(
        fmt::format("the {} annotation of an autoscaling/v1 HorizontalPodAutoscaler must be a "
                    "JSON {}; remove it or write the fields through autoscaling/v2",
                    key, array ? "array" : "object"));
  return value;
}

template <typename Convert>
json::array converted(const json::array& items, Convert convert) {
  json::array out;
  for (const auto& item : items)
    if (const auto* object = item.if_object()) out.push_back(convert(*object));
  return out;
}

bool is_cpu_resource(const json::object& metric) {
  if (string_at(metric, "type") != "Resource") return false;
  const auto* resource = find_object(metric, "resource");
  return resource != nullptr && string_at(*resource, "name") == "cpu";
}

}  // namespace

json::object hpa_v2_to_v1(const json::object& v2) {
  json::object metadata = object_or_empty(find_object(v2, "metadata"));
  json::object annotations = object_or_empty(find_object(metadata, "annotations"));
  for (auto key : kRoundTripAnnotations) annotations.erase(key);
  const auto& spec_in = object_or_empty(find_object(v2, "spec"));
  const auto& status_in = object_or_empty(find_object(v2, "status"));

  json::object spec;
  copy_field(&spec_in, "scaleTargetRef", spec);
  copy_field(&spec_in, "minReplicas", spec);
  copy_field(&spec_in, "maxReplicas", spec);
  json::array other_metrics;
  bool cpu_seen = false;
  if (const auto* metrics = find_array(spec_in, "metrics"))
    for (const auto& item : *metrics) {
      const auto* metric = item.if_object();
      if (metric == nullptr) continue;
      const bool cpu = is_cpu_resource(*metric);
      const auto* target = cpu ? find_object(*find_object(*metric, "resource"), "target") : nullptr;
      if (cpu && !cpu_seen && present(target, "averageUtilization"))
        spec["targetCPUUtilizationPercentage"] = target->at("averageUtilization");
      cpu_seen = cpu_seen || cpu;
      if (!(cpu && present(target, "averageUtilization")))
        other_metrics.push_back(metric_spec_to_v1(*metric));
    }

  json::object status;
  copy_field(&status_in, "observedGeneration", status);
  copy_field(&status_in, "lastScaleTime", status);
  status["currentReplicas"] = int_at(status_in, "currentReplicas");
  status["desiredReplicas"] = int_at(status_in, "desiredReplicas");
  const auto* current_metrics = find_array(status_in, "currentMetrics");
  if (current_metrics != nullptr)
    for (const auto& item : *current_metrics)
      if (const auto* metric = item.if_object(); metric != nullptr && is_cpu_resource(*metric))
        copy_field(find_object(*find_object(*metric, "resource"), "current"), "averageUtilization",
                   status, "currentCPUUtilizationPercentage");

  if (!other_metrics.empty()) annotations[kMetricsAnnotation] = json::serialize(other_metrics);
  if (current_metrics != nullptr && !current_metrics->empty())
    annotations[kCurrentMetricsAnnotation] =
        json::serialize(converted(*current_metrics, metric_status_to_v1));
  if (const auto* conditions = find_array(status_in, "conditions");
      conditions != nullptr && !conditions->empty())
    annotations[kConditionsAnnotation] = json::serialize(*conditions);
  if (const auto* behavior = find_object(spec_in, "behavior"))
    annotations[kBehaviorAnnotation] = json::serialize(
        json::object{{"ScaleUp", rules_to_internal(find_object(*behavior, "scaleUp"))},
                     {"ScaleDown", rules_to_internal(find_object(*behavior, "scaleDown"))}});
  if (annotations.empty())
    metadata.erase("annotations");
  else
    metadata["annotations"] = std::move(annotations);
  return json::object{{"kind", "HorizontalPodAutoscaler"},
                      {"apiVersion", "autoscaling/v1"},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)},
                      {"status", std::move(status)}};
}

json::object hpa_v1_to_v2(const json::object& v1) {
  json::object metadata = object_or_empty(find_object(v1, "metadata"));
  json::object annotations = object_or_empty(find_object(metadata, "annotations"));
  const auto& spec_in = object_or_empty(find_object(v1, "spec"));
  const auto* status_in = find_object(v1, "status");

  json::object spec;
  copy_field(&spec_in, "scaleTargetRef", spec);
  copy_field(&spec_in, "minReplicas", spec);
  copy_field(&spec_in, "maxReplicas", spec);
  json::array metrics;
  if (annotations.contains(kMetricsAnnotation))
    metrics = converted(annotation_json(annotations, kMetricsAnnotation, true).as_array(),
                        metric_spec_to_v2);
  const bool has_cpu_target = present(&spec_in, "targetCPUUtilizationPercentage");
  if (has_cpu_target || metrics.empty()) {
    const json::value utilization = has_cpu_target ? spec_in.at("targetCPUUtilizationPercentage")
                                                   : json::value(kDefaultCpuUtilization);
    metrics.push_back(json::object{
        {"type", "Resource"},
        {"resource", json::object{{"name", "cpu"},
                                  {"target", json::object{{"type", "Utilization"},
                                                          {"averageUtilization", utilization}}}}}});
  }
  spec["metrics"] = std::move(metrics);
  if (annotations.contains(kBehaviorAnnotation)) {
    const auto internal = annotation_json(annotations, kBehaviorAnnotation, false);
    json::object behavior;
    for (auto [from, to] : {std::pair{"ScaleUp", "scaleUp"}, std::pair{"ScaleDown", "scaleDown"}})
      if (const auto* rules = find_object(internal.as_object(), from))
        behavior[to] = rules_from_internal(*rules);
    spec["behavior"] = std::move(behavior);
  }

  json::object status;
  copy_field(status_in, "observedGeneration", status);
  copy_field(status_in, "lastScaleTime", status);
  copy_field(status_in, "currentReplicas", status);
  status["desiredReplicas"] = status_in != nullptr ? int_at(*status_in, "desiredReplicas") : 0;
  if (annotations.contains(kCurrentMetricsAnnotation)) {
    status["currentMetrics"] =
        converted(annotation_json(annotations, kCurrentMetricsAnnotation, true).as_array(),
                  metric_status_to_v2);
  } else if (present(status_in, "currentCPUUtilizationPercentage")) {
    status["currentMetrics"] = json::array{json::object{
        {"type", "Resource"},
        {"resource",
         json::object{
             {"name", "cpu"},
             {"current", json::object{{"averageUtilization",
                                       status_in->at("currentCPUUtilizationPercentage")}}}}}}};
  }
  if (annotations.contains(kConditionsAnnotation))
    status["conditions"] = annotation_json(annotations, kConditionsAnnotation, true);
  for (auto key : kRoundTripAnnotations) annotations.erase(key);
  if (annotations.empty())
    metadata.erase("annotations");
  else
    metadata["annotations"] = std::move(annotations);
  return json::object{{"kind", "HorizontalPodAutoscaler"},
                      {"apiVersion", "autoscaling/v2"},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)},
                      {"status", std::move(status)}};
}

}  // namespace rg::sim
