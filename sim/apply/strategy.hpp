// The per-kind rules of a write -- the API server's registry strategies, reduced to what
// kube-sim's resources need: name rules, defaults, status reset on create, validation, and the
// grace period a pod's deletion gets.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim::apply {

/// Why `name` is not a valid name of `type` (the Invalid cause detail), "" when it is:
/// namespaces are RFC 1123 labels, services RFC 1035 labels, RBAC objects path segments
/// ("system:discovery"), everything else RFC 1123 subdomains.
std::string name_problem(const ResourceType& type, std::string_view name);

/// The defaults the API server applies (pkg/apis/*/v1/defaults.go) to the fields controllers
/// and kubectl read: Deployment/ReplicaSet/StatefulSet spec, Pod spec and the
/// DefaultTolerationSeconds tolerations, HorizontalPodAutoscaler spec (autoscaling.hpp).
void apply_defaults(const ResourceType& type, boost::json::object& object);

/// Status a create may not set (PrepareForCreate): workloads start without status, pods
/// Pending, namespaces Active.
void reset_status_on_create(const ResourceType& type, boost::json::object& object);

/// Throws ApiError 422 for what the kind's validation refuses (selector required, negative
/// replicas, the HorizontalPodAutoscaler rules).
void validate(const ResourceType& type, const boost::json::object& object);

/// apiextensions.k8s.io/v1 customresourcedefinitions.
bool is_definition(const ResourceType& type);

/// The grace period a DELETE gives a pod (the pod strategy's CheckGracefulDelete): `requested`
/// (gracePeriodSeconds), else spec.terminationGracePeriodSeconds; 0 for a pod no kubelet runs
/// (unscheduled) or that has finished.
std::int64_t pod_grace_period(const boost::json::object& pod,
                              std::optional<std::int64_t> requested);

}  // namespace rg::sim::apply
