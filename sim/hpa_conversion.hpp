// HorizontalPodAutoscaler conversion between autoscaling/v2 (the storage version) and
// autoscaling/v1, as the API server converts (KK pkg/apis/autoscaling/v1/conversion.go):
// v1's spec.targetCPUUtilizationPercentage is v2's Resource metric of cpu with a Utilization
// target, status.currentCPUUtilizationPercentage its current averageUtilization; what v1 has no
// field for travels in annotations -- the other metrics (autoscaling.alpha.kubernetes.io/metrics),
// all current metrics (.../current-metrics) in v1's MetricSpec/MetricStatus shapes, the
// conditions (.../conditions) and the behavior (.../behavior, in the internal type's Go field
// names) -- so v2 -> v1 -> v2 loses nothing.
#pragma once

#include <boost/json/object.hpp>

namespace rg::sim {

/// An autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 (kind and apiVersion set).
boost::json::object hpa_v2_to_v1(const boost::json::object& v2);

/// An autoscaling/v1 HorizontalPodAutoscaler as autoscaling/v2 (kind and apiVersion set).
/// Throws ApiError 400 when a round-trip annotation does not hold the JSON it must.
boost::json::object hpa_v1_to_v2(const boost::json::object& v1);

}  // namespace rg::sim
