// Top-level and metadata field validation (see field_validation.hpp).
#include "sim/apply/field_validation.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <span>

#include "sim/api_error.hpp"

namespace rg::sim::apply {
namespace {

using Names = std::span<const std::string_view>;

bool among(Names names, std::string_view field) {
  return std::find(names.begin(), names.end(), field) != names.end();
}

constexpr std::string_view kObjectMeta[] = {"name",
                                            "generateName",
                                            "namespace",
                                            "selfLink",
                                            "uid",
                                            "resourceVersion",
                                            "generation",
                                            "creationTimestamp",
                                            "deletionTimestamp",
                                            "deletionGracePeriodSeconds",
                                            "labels",
                                            "annotations",
                                            "ownerReferences",
                                            "finalizers",
                                            "managedFields"};
constexpr std::string_view kSpecStatus[] = {"spec", "status"};
constexpr std::string_view kConfigMap[] = {"data", "binaryData", "immutable"};
constexpr std::string_view kSecret[] = {"data", "stringData", "type", "immutable"};
constexpr std::string_view kServiceAccount[] = {"secrets", "imagePullSecrets",
                                                "automountServiceAccountToken"};
constexpr std::string_view kEndpoints[] = {"subsets"};
constexpr std::string_view kCoreEvent[] = {
    "involvedObject",     "reason",           "message", "source",
    "firstTimestamp",     "lastTimestamp",    "count",   "type",
    "eventTime",          "series",           "action",  "related",
    "reportingComponent", "reportingInstance"};
constexpr std::string_view kEvent[] = {"eventTime",
                                       "series",
                                       "reportingController",
                                       "reportingInstance",
                                       "action",
                                       "reason",
                                       "regarding",
                                       "related",
                                       "note",
                                       "type",
                                       "deprecatedSource",
                                       "deprecatedFirstTimestamp",
                                       "deprecatedLastTimestamp",
                                       "deprecatedCount"};
constexpr std::string_view kRole[] = {"rules"};
constexpr std::string_view kClusterRole[] = {"rules", "aggregationRule"};
constexpr std::string_view kBinding[] = {"subjects", "roleRef"};

/// The top-level fields of a kind beyond apiVersion, kind and metadata; empty when unknown.
Names top_level_fields(const ResourceType& type) {
  const std::string_view resource = type.resource;
  if (type.group.empty()) {
    if (resource == "configmaps") return kConfigMap;
    if (resource == "secrets") return kSecret;
    if (resource == "serviceaccounts") return kServiceAccount;
    if (resource == "endpoints") return kEndpoints;
    if (resource == "events") return kCoreEvent;
    return kSpecStatus;
  }
  if (type.group == "events.k8s.io") return kEvent;
  if (type.group == "rbac.authorization.k8s.io") {
    if (resource == "roles") return kRole;
    if (resource == "clusterroles") return kClusterRole;
    return kBinding;
  }
  if (type.group == "apps" || type.group == "batch" || type.group == "policy" ||
      type.group == "autoscaling" || type.group == "coordination.k8s.io" ||
      type.group == "networking.k8s.io" || type.group == "authentication.k8s.io" ||
      type.group == "authorization.k8s.io")
    return kSpecStatus;
  return {};
}

}  // namespace

FieldValidation field_validation_from(std::optional<std::string_view> value) {
  if (!value || value->empty() || *value == "Warn") return FieldValidation::kWarn;
  if (*value == "Strict") return FieldValidation::kStrict;
  if (*value == "Ignore") return FieldValidation::kIgnore;
  throw errors::bad_request(fmt::format(
      "fieldValidation parameter unsupported: {}, expected one of Ignore, Warn, Strict", *value));
}

std::vector<std::string> unknown_fields(const ResourceType& type,
                                        const boost::json::object& object) {
  std::vector<std::string> unknown;
  const Names known = top_level_fields(type);
  if (known.empty()) return unknown;
  for (const auto& [key, value] : object) {
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "metadata") {
      if (const auto* metadata = value.if_object())
        for (const auto& [field, ignored] : *metadata)
          if (!among(kObjectMeta, field)) unknown.push_back("metadata." + std::string(field));
      continue;
    }
    if (!among(known, key)) unknown.emplace_back(key);
  }
  return unknown;
}

std::vector<std::string> validate_fields(FieldValidation mode, const ResourceType& type,
                                         const boost::json::object& object) {
  std::vector<std::string> warnings;
  if (mode == FieldValidation::kIgnore) return warnings;
  const auto unknown = unknown_fields(type, object);
  if (unknown.empty()) return warnings;
  if (mode == FieldValidation::kStrict) {
    std::vector<std::string> parts;
    parts.reserve(unknown.size());
    for (const auto& field : unknown) parts.push_back(fmt::format("unknown field \"{}\"", field));
    throw errors::bad_request(
        fmt::format("{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
                    type.kind, type.version, type.kind, fmt::join(parts, ", ")));
  }
  for (const auto& field : unknown)
    warnings.push_back(fmt::format("299 - \"unknown field \\\"{}\\\"\"", field));
  return warnings;
}

}  // namespace rg::sim::apply
