// Decoding the body of a TokenRequest, SelfSubjectAccessReview or SelfSubjectReview POST: JSON,
// or the protobuf that typed client-go clients (kubectl create token, kubectl auth can-i) send.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <string_view>

#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// The body as a JSON object of `kind` in `api_version` (kind/apiVersion may be left out).
/// Throws 400 BadRequest for malformed bodies or another kind, 415 for other content types.
boost::json::object decode_request_body(const HttpRequest& request, std::string_view kind,
                                        std::string_view api_version);

/// RFC 3339 UTC, seconds precision: metav1.Time on the wire.
std::string rfc3339(std::chrono::system_clock::time_point time);

}  // namespace rg::sim::auth
