// The scale subresource's view of an object: the autoscaling/v1 Scale the API server's scale
// handler answers (spec.replicas, status.replicas and the selector of the object), and the way
// back, an apply configuration of a Scale as one of the object.
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim {

/// The Scale of `object` of `type` (a Deployment, ReplicaSet, StatefulSet, ... or a custom
/// resource with a scale subresource): its name, namespace, uid, resourceVersion and
/// creationTimestamp, spec.replicas (absent when 0), status.replicas and status.selector (the
/// label selector as a string; for a custom resource the string at its labelSelectorPath, its
/// replicas at specReplicasPath and statusReplicasPath, 0 when absent). Built in `storage`.
boost::json::object scale_of(const ResourceType& type, const boost::json::object& object,
                             boost::json::storage_ptr storage = {});

/// Sets the object's replicas (spec.replicas, or a custom resource's specReplicasPath, making
/// the objects on the way) to `replicas`, as a Scale update does.
void set_scale_replicas(const ResourceType& type, boost::json::object& object,
                        boost::json::value replicas);

/// An apply configuration of the scale subresource (an autoscaling/v1 Scale) as one of the
/// object of `type` named `name`: its spec.replicas is the object's, as the API server's scale
/// handler maps the fields a manager owns between the two. Throws 400 for another kind.
boost::json::object scale_to_object(const ResourceType& type, std::string_view name,
                                    const boost::json::object& scale);

}  // namespace rg::sim
