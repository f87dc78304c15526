// IntOrString values that scale with a total -- a Deployment's maxSurge/maxUnavailable, a
// PodDisruptionBudget's minAvailable/maxUnavailable -- resolved as apimachinery's
// intstr.GetScaledValueFromIntOrPercent: an integer as it is, "N%" as N% of the total rounded
// up or down.
#pragma once

#include <boost/json/value.hpp>

#include <cstdint>

namespace rg::sim::cluster {

/// Throws std::invalid_argument for anything but an integer or "N%" (or a numeric string).
std::int64_t scaled_value(const boost::json::value& value, std::int64_t total, bool round_up);

/// Whether `value` is a percentage ("N%").
bool is_percent(const boost::json::value& value);

}  // namespace rg::sim::cluster
