// What the API server does to a pod on its way in and out, for the simulated cluster's
// controllers that write the Store directly: the pod a ReplicaSet's template becomes (with
// the server's defaults and the DefaultTolerationSeconds tolerations), and deletion.
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

#include "sim/cluster/caches.hpp"

namespace rg::sim::cluster {

/// The Pod a ReplicaSet controller creates from `replica_set`'s template: generateName
/// "<rs>-", the template's labels and annotations, the controller owner reference, the
/// template's spec with the API server's defaults, status Pending.
boost::json::object pod_from_template(const ReplicaSetView& replica_set);

/// Fills the pod spec defaults the API server applies (restartPolicy, dnsPolicy,
/// schedulerName, container terminationMessagePath and imagePullPolicy, ...) and the two
/// NoExecute tolerations of the DefaultTolerationSeconds admission plugin.
void apply_pod_defaults(boost::json::object& spec);

/// Deletes `pod` the way a DELETE with the pod's grace period does: marks it terminating
/// (metadata.deletionTimestamp, deletionGracePeriodSeconds) when the store keeps terminating
/// pods, else removes it. Only the pod with that uid is touched. The caches see the result
/// at once.
void delete_pod(Context& context, const PodView& pod);

/// Removes a terminating pod for good (the kubelet's final delete, grace period 0).
void remove_pod(Context& context, const PodView& pod);

}  // namespace rg::sim::cluster
