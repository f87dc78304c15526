// Version conversion: one store serving a resource through several versions, as the API server
// serves autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers from one etcd key. Objects
// are stored in the storage version (ResourceType::storage) and converted on every read, list
// item and watch event of another version, and on every write through one.
#pragma once

#include <boost/json/object.hpp>

#include <memory>

#include "sim/object_encoder.hpp"
#include "sim/resource_table.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

/// `object` (any served version of `type`'s resource, by its apiVersion) in `type`'s version;
/// unchanged when it is in it already. Throws ApiError 500 for a pair with no conversion.
boost::json::object convert_to(const ResourceType& type, boost::json::object object);

/// The stored `object` as `type`'s version names it: the same pointer when its type is `type`.
ObjectPtr in_version(const ResourceType& type, const ObjectPtr& object);

/// An encoder of `type` that converts every list item and watch object to `type`'s version
/// before `inner` encodes it.
std::unique_ptr<ObjectEncoder> converting_encoder(const ResourceType& type,
                                                  std::unique_ptr<ObjectEncoder> inner);

}  // namespace rg::sim
