// The scale subresource's view of an object: the autoscaling/v1 Scale the API server's scale
// handler answers (spec.replicas, status.replicas and the selector of the object), and the way
// back, an apply configuration of a Scale as one of the object.
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim {

/// The Scale of `object` (a Deployment, ReplicaSet, StatefulSet, ... with kind and apiVersion):
/// its name, namespace, uid, resourceVersion and creationTimestamp, spec.replicas (absent when
/// 0), status.replicas and status.selector (the label selector as a string). Built in `storage`.
boost::json::object scale_of(const boost::json::object& object,
                             boost::json::storage_ptr storage = {});

/// An apply configuration of the scale subresource (an autoscaling/v1 Scale) as one of the
/// object of `type` named `name`: its spec.replicas is the object's, as the API server's scale
/// handler maps the fields a manager owns between the two. Throws 400 for another kind.
boost::json::object scale_to_object(const ResourceType& type, std::string_view name,
                                    const boost::json::object& scale);

}  // namespace rg::sim
