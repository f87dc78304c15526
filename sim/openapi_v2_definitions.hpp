// The OpenAPI schema definitions kube-sim publishes (/openapi/v2 "definitions"): one per kind it
// serves, built from the protobuf schema tables (client/protobuf/schema.hpp), which name every
// field the API's JSON uses and its type -- so `kubectl explain` can walk real fields.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim {

/// The definition name of a kind, as the API server spells it: "io.k8s.api.apps.v1.Deployment",
/// "io.k8s.api.core.v1.Pod".
std::string definition_name(std::string_view group, std::string_view version,
                            std::string_view kind);

/// Swagger 2.0 definitions (name -> schema) for every kind `table` serves and every kind its
/// subresources answer with. A kind's definition carries `x-kubernetes-group-version-kind`; its
/// fields are those of the kind's protobuf table (kinds without a table get apiVersion, kind and
/// metadata); nested messages become their own definitions, referenced as "#/definitions/<name>".
boost::json::object openapi_definitions(const ResourceTable& table);

}  // namespace rg::sim
