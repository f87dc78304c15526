// Request bodies: JSON or YAML documents decoded to JSON objects, with the API server's errors
// for malformed bodies and mismatched kinds.
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

/// The request body as an object of `kind` in `api_version` (kind/apiVersion may be absent;
/// when present they must match). Throws 400 / 415.
boost::json::object parse_object_body(const HttpRequest& request, std::string_view kind,
                                      std::string_view api_version);

}  // namespace rg::sim
