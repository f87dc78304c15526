// HorizontalPodAutoscaler defaults and validation, as the API server's autoscaling strategy.
#include "sim/apply/autoscaling.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <array>
#include <string>
#include <string_view>

#include "sim/json_fields.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

constexpr std::int64_t kMaxStabilizationWindowSeconds = 3600;
constexpr std::int64_t kMaxPeriodSeconds = 1800;
constexpr std::int64_t kDefaultCpuUtilization = 80;

json::object policy(std::string_view type, int value) {
  return {{"type", type}, {"value", value}, {"periodSeconds", 15}};
}

// defaults.go: defaultHPAScaleUpRules / defaultHPAScaleDownRules; scale-down leaves the
// stabilization window to the controller's --horizontal-pod-autoscaler-downscale-stabilization.
json::object default_rules(bool scale_up) {
  json::object rules{{"selectPolicy", "Max"}};
  if (scale_up) {
    rules["stabilizationWindowSeconds"] = 0;
    rules["policies"] = json::array{policy("Pods", 4), policy("Percent", 100)};
  } else {
    rules["policies"] = json::array{policy("Percent", 100)};
  }
  return rules;
}

// copyHPAScalingRules: what the client set wins, field by field.
void complete_rules(json::object& behavior, std::string_view key, bool scale_up) {
  json::object rules = default_rules(scale_up);
  if (const auto* given = find_object(behavior, key))
    for (const auto& [field, value] : *given)
      if (!value.is_null()) rules[field] = value;
  behavior[key] = std::move(rules);
}

bool has(const json::object* object, std::string_view key) {
  if (object == nullptr) return false;
  const auto* value = object->if_contains(key);
  return value != nullptr && !value->is_null();
}

struct Problems {
  std::vector<FieldError>& list;

  void required(const std::string& field, std::string_view detail = {}) {
    list.push_back({"FieldValueRequired", field,
                    detail.empty() ? std::string("Required value")
                                   : fmt::format("Required value: {}", detail)});
  }
  void invalid(const std::string& field, std::int64_t value, std::string_view detail) {
    list.push_back(
        {"FieldValueInvalid", field, fmt::format("Invalid value: {}: {}", value, detail)});
  }
  void invalid(const std::string& field, std::string_view value, std::string_view detail) {
    list.push_back(
        {"FieldValueInvalid", field, fmt::format("Invalid value: \"{}\": {}", value, detail)});
  }
  void not_supported(const std::string& field, std::string_view value, std::string_view supported) {
    list.push_back(
        {"FieldValueNotSupported", field,
         fmt::format("Unsupported value: \"{}\": supported values: {}", value, supported)});
  }
  void forbidden(const std::string& field, std::string_view detail) {
    list.push_back({"FieldValueForbidden", field, fmt::format("Forbidden: {}", detail)});
  }
};

// apimachinery's path.IsValidPathSegmentName.
void validate_path_segment(Problems& problems, const std::string& field, const std::string& name) {
  if (name == "." || name == "..")
    problems.invalid(field, name, fmt::format("may not be '{}'", name));
  for (std::string_view part : {"/", "%"})
    if (name.find(part) != std::string::npos)
      problems.invalid(field, name, fmt::format("may not contain '{}'", part));
}

void validate_reference(Problems& problems, const json::object* reference,
                        const std::string& path) {
  for (std::string_view key : {"kind", "name"}) {
    const std::string field = path + "." + std::string(key);
    const std::string value = reference != nullptr ? string_at(*reference, key) : "";
    if (value.empty())
      problems.required(field);
    else
      validate_path_segment(problems, field, value);
  }
}

// validateMetricTarget and the resource sources' "utilization or value" rule.
void validate_resource_source(Problems& problems, const json::object& source,
                              const std::string& path) {
  if (string_at(source, "name").empty())
    problems.required(path + ".name", "must specify a resource name");
  const auto* target = find_object(source, "target");
  const bool utilization = has(target, "averageUtilization");
  const bool value = has(target, "averageValue");
  if (!utilization && !value)
    problems.required(path + ".target.averageUtilization",
                      "must set either a target raw value or a target utilization");
  if (utilization && value)
    problems.forbidden(path + ".target.averageValue",
                       "may not set both a target raw value and a target utilization");
  if (utilization && int_at(*target, "averageUtilization") < 1)
    problems.invalid(path + ".target.averageUtilization", int_at(*target, "averageUtilization"),
                     "must be greater than 0");
}

void validate_metric(Problems& problems, const json::object& metric, const std::string& path) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kSources = {{
      {"ContainerResource", "containerResource"},
      {"External", "external"},
      {"Object", "object"},
      {"Pods", "pods"},
      {"Resource", "resource"},
  }};
  constexpr std::string_view kSupported =
      R"("ContainerResource", "External", "Object", "Pods", "Resource")";
  const std::string type = string_at(metric, "type");
  if (type.empty()) problems.required(path + ".type", "must specify a metric source type");
  std::string_view expected;
  for (const auto& [name, field] : kSources)
    if (name == type) expected = field;
  if (expected.empty()) {
    problems.not_supported(path + ".type", type, kSupported);
    return;
  }
  const auto* source = find_object(metric, expected);
  if (source == nullptr) {
    problems.required(path + "." + std::string(expected),
                      "must populate information for the given metric source");
  } else if (expected == "resource" || expected == "containerResource") {
    validate_resource_source(problems, *source, path + "." + std::string(expected));
  }
  for (const auto& [name, field] : kSources)
    if (field != expected && has(&metric, field))
      problems.forbidden(path + "." + std::string(field),
                         "must populate the given metric source only");
}

// validateScalingRules and validateScalingPolicy.
void validate_rules(Problems& problems, const json::object& rules, const std::string& path) {
  if (has(&rules, "stabilizationWindowSeconds")) {
    const auto window = int_at(rules, "stabilizationWindowSeconds");
    if (window < 0)
      problems.invalid(path + ".stabilizationWindowSeconds", window,
                       "must be greater than or equal to zero");
    if (window > kMaxStabilizationWindowSeconds)
      problems.invalid(
          path + ".stabilizationWindowSeconds", window,
          fmt::format("must be less than or equal to {}", kMaxStabilizationWindowSeconds));
  }
  if (has(&rules, "selectPolicy")) {
    const std::string select = string_at(rules, "selectPolicy");
    if (select != "Disabled" && select != "Max" && select != "Min")
      problems.not_supported(path + ".selectPolicy", select, R"("Disabled", "Max", "Min")");
  }
  const auto* policies = find_array(rules, "policies");
  if (policies == nullptr || policies->empty()) {
    problems.required(path + ".policies", "must specify at least one Policy");
    return;
  }
  for (std::size_t i = 0; i < policies->size(); ++i) {
    const std::string at = fmt::format("{}.policies[{}]", path, i);
    const auto* entry = (*policies)[i].if_object();
    const json::object empty;
    const json::object& policy = entry != nullptr ? *entry : empty;
    const std::string type = string_at(policy, "type");
    if (type != "Pods" && type != "Percent")
      problems.not_supported(at + ".type", type, R"("Percent", "Pods")");
    if (int_at(policy, "value") <= 0)
      problems.invalid(at + ".value", int_at(policy, "value"), "must be greater than zero");
    const auto period = int_at(policy, "periodSeconds");
    if (period <= 0) problems.invalid(at + ".periodSeconds", period, "must be greater than zero");
    if (period > kMaxPeriodSeconds)
      problems.invalid(at + ".periodSeconds", period,
                       fmt::format("must be less than or equal to {}", kMaxPeriodSeconds));
  }
}

}  // namespace

void default_horizontal_pod_autoscaler(json::object& object) {
  auto& spec = object_at(object, "spec");
  if (!has(&spec, "minReplicas")) spec["minReplicas"] = 1;
  const auto* metrics = find_array(spec, "metrics");
  if (metrics == nullptr || metrics->empty())
    spec["metrics"] = json::array{json::object{
        {"type", "Resource"},
        {"resource",
         json::object{{"name", "cpu"},
                      {"target", json::object{{"type", "Utilization"},
                                              {"averageUtilization", kDefaultCpuUtilization}}}}}}};
  if (auto* behavior = spec.if_contains("behavior"); behavior != nullptr && behavior->is_object()) {
    complete_rules(behavior->get_object(), "scaleUp", true);
    complete_rules(behavior->get_object(), "scaleDown", false);
  }
}

void validate_horizontal_pod_autoscaler(const json::object& object,
                                        std::vector<FieldError>& field_errors) {
  Problems problems{field_errors};
  const json::object empty;
  const auto* found = find_object(object, "spec");
  const json::object& spec = found != nullptr ? *found : empty;
  const bool has_min = has(&spec, "minReplicas");
  const auto min = int_at(spec, "minReplicas");
  const auto max = int_at(spec, "maxReplicas");
  if (has_min && min < 1)
    problems.invalid("spec.minReplicas", min, "must be greater than or equal to 1");
  if (max < 1) problems.invalid("spec.maxReplicas", max, "must be greater than 0");
  if (has_min && max < min)
    problems.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`");
  const auto before = field_errors.size();
  validate_reference(problems, find_object(spec, "scaleTargetRef"), "spec.scaleTargetRef");
  if (field_errors.size() == before)  // metrics are checked only once the target is
    if (const auto* metrics = find_array(spec, "metrics"))
      for (std::size_t i = 0; i < metrics->size(); ++i)
        if (const auto* metric = (*metrics)[i].if_object())
          validate_metric(problems, *metric, fmt::format("spec.metrics[{}]", i));
  if (const auto* behavior = find_object(spec, "behavior"))
    for (std::string_view direction : {"scaleUp", "scaleDown"})
      if (const auto* rules = find_object(*behavior, direction))
        validate_rules(problems, *rules, "spec.behavior." + std::string(direction));
}

}  // namespace rg::sim::apply
