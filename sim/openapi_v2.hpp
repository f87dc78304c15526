// The /openapi/v2 document: Swagger 2.0 with a definition per served kind (openapi_v2_definitions)
// and a patch operation per resource path, in the two forms the API server serves it -- JSON, and
// protobuf (gnostic's openapi.v2.Document, which kubectl and helm ask for).
#pragma once

#include <boost/json/object.hpp>

#include <string>

#include "sim/resource_table.hpp"

namespace rg::sim {

/// The Content-Type of the protobuf form. Clients ask for it as
/// "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"; kube-openapi answers with the
/// '@' spelled '.', which Go's mime parser accepts (it rejects the '@').
inline constexpr std::string_view kOpenApiV2Protobuf =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// The Swagger 2.0 document for every resource `table` serves.
boost::json::object openapi_v2_document(const ResourceTable& table, const std::string& version);

/// `document` (as openapi_v2_document builds it) encoded as a gnostic openapi.v2.Document.
/// Throws std::invalid_argument naming the first key it has no protobuf field for.
std::string encode_openapi_v2(const boost::json::object& document);

}  // namespace rg::sim
