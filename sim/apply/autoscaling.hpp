// The autoscaling/v2 HorizontalPodAutoscaler's registry strategy: the defaults the API server
// applies (KK pkg/apis/autoscaling/v2/defaults.go) and its validation (KK
// pkg/apis/autoscaling/validation/validation.go), with the real field paths and messages.
#pragma once

#include <boost/json/object.hpp>

#include <vector>

#include "sim/api_error.hpp"

namespace rg::sim::apply {

/// spec.minReplicas 1; spec.metrics CPU at 80% average utilization when none; a given behavior
/// completed with the scale-up (Max of 4 pods / 100% per 15 s, no stabilization) and scale-down
/// (Max of 100% per 15 s) rules for what it leaves out.
void default_horizontal_pod_autoscaler(boost::json::object& object);

/// Appends what the API server refuses in an HPA: minReplicas below 1, maxReplicas below 1 or
/// below minReplicas, a missing or unusable scaleTargetRef kind/name, metrics without their
/// source, and behavior rules out of range.
void validate_horizontal_pod_autoscaler(const boost::json::object& object,
                                        std::vector<FieldError>& field_errors);

}  // namespace rg::sim::apply
