// Request bodies: JSON, YAML or Kubernetes protobuf (`application/vnd.kubernetes.protobuf`, what
// typed client-go clients send since 1.32) decoded to JSON objects, with the API server's errors
// for malformed bodies, unsupported media types and mismatched kinds.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string_view>

#include "sim/http_types.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

/// Parses JSON, or YAML when it is not JSON (YAML 1.2 core scalars: plain `true`, `3`, `null`
/// become typed; quoted scalars stay strings). Throws ApiError 400 on malformed input.
boost::json::value parse_json_or_yaml(std::string_view text);

/// The request body by its Content-Type: JSON or YAML (also without a Content-Type), or a
/// protobuf envelope of a kind client/protobuf has a schema for (decoded to the JSON the client
/// would have sent, apiVersion and kind included). Throws 400 for a malformed body and 415 for
/// other media types and for protobuf kinds without a schema (the message names the kind).
boost::json::value decode_body(const HttpRequest& request);

/// The request body as an object of `kind` in `api_version` (kind/apiVersion may be absent;
/// when present they must match). Throws 400 / 415.
boost::json::object parse_object_body(const HttpRequest& request, std::string_view kind,
                                      std::string_view api_version);

}  // namespace rg::sim
