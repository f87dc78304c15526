// Request bodies: JSON, YAML or Kubernetes protobuf (`application/vnd.kubernetes.protobuf`, what
// typed client-go clients send since 1.32) decoded to JSON objects, with the API server's errors
// for malformed bodies, unsupported media types and mismatched kinds.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>

#include "sim/http_types.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

/// How deep a body (and so a stored object) may nest. The API server's decoders inherit Go's
/// encoding/json limit of 10000 levels (scanner.go, maxNestingDepth); kube-sim stops at 400:
/// below yaml-cpp's own guard (about 500), far deeper than any real object (a CRD's schema nests
/// a few dozen levels), and far from the stack's end in the recursive patch and apply code.
inline constexpr std::size_t kMaxNestingDepth = 400;

/// How many levels of objects and arrays `value` nests (a scalar: 0, `{}` or `[]`: 1).
std::size_t nesting_depth(const boost::json::value& value);

/// Parses JSON, or YAML when it is not JSON (YAML 1.2 core scalars: plain `true`, `3`, `null`
/// become typed; quoted scalars stay strings). Throws ApiError 400 on malformed input and on
/// input nested deeper than kMaxNestingDepth.
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
