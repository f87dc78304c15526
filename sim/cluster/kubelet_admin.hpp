// The /sim/kubelets admin endpoint: the simulated kubelets' outage scenarios over HTTP, for
// harnesses that run kube-sim as a process (see sim/README.md, "Admin endpoint:
// /sim/kubelets"). kube-sim's main and test fixtures route it to a Cluster with
// Server::route_admin("/sim/kubelets", kubelet_admin(cluster)).
#pragma once

#include <boost/json/object.hpp>

#include "sim/admin_routes.hpp"
#include "sim/cluster/cluster.hpp"

namespace rg::sim {

/// The handler of /sim/kubelets for `cluster` (which must outlive the route).
AdminRoutes::Handler kubelet_admin(Cluster& cluster);

/// A kubelet's state as the endpoint answers it: node, alive, stoppedByLabel, stoppedAt (RFC
/// 3339 with microseconds, wall clock) and stoppedAtMonotonic (seconds of steady_clock, i.e.
/// CLOCK_MONOTONIC: compare with Python's time.monotonic()), lastRenewal and
/// lastRenewalMonotonic (when its last Lease renewal reached the store), lastRenewTime (that
/// renewal's spec.renewTime), renewalDelaySeconds; absent moments are null.
boost::json::object to_json(const KubeletState& state);

}  // namespace rg::sim
