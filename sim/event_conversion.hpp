// Event conversion between core/v1 (the storage version) and events.k8s.io/v1, as the API
// server converts (KK pkg/apis/events/v1/conversion.go, Convert_v1_Event_To_core_Event and
// back, plus the fields with the same name): regarding <-> involvedObject, note <-> message,
// reportingController <-> reportingComponent, deprecatedSource <-> source,
// deprecatedFirstTimestamp / deprecatedLastTimestamp / deprecatedCount <-> firstTimestamp /
// lastTimestamp / count; metadata, eventTime, series, reportingInstance, action, reason,
// related and type as they are. So an Event written through either group is read through the
// other: the scheduler's events.k8s.io Events appear in `kubectl describe`, which reads core/v1.
#pragma once

#include <boost/json/object.hpp>

namespace rg::sim {

/// A core/v1 Event as events.k8s.io/v1 (kind and apiVersion set).
boost::json::object event_core_to_events_v1(const boost::json::object& core);

/// An events.k8s.io/v1 Event as core/v1 (kind and apiVersion set).
boost::json::object event_events_v1_to_core(const boost::json::object& event);

}  // namespace rg::sim
