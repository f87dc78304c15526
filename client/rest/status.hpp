// Status: metav1.Status, the body of every Kubernetes API error (and of some successes, e.g. a
// DELETE). The client decodes it into typed errors; kube-sim encodes it with the same type.
#pragma once

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::client {

/// metav1.StatusReason values the API server sends (apimachinery pkg/apis/meta/v1/types.go).
namespace reason {
inline constexpr std::string_view kUnknown;
inline constexpr std::string_view kUnauthorized = "Unauthorized";
inline constexpr std::string_view kForbidden = "Forbidden";
inline constexpr std::string_view kNotFound = "NotFound";
inline constexpr std::string_view kAlreadyExists = "AlreadyExists";
inline constexpr std::string_view kConflict = "Conflict";
inline constexpr std::string_view kGone = "Gone";
inline constexpr std::string_view kExpired = "Expired";
inline constexpr std::string_view kInvalid = "Invalid";
inline constexpr std::string_view kServerTimeout = "ServerTimeout";
inline constexpr std::string_view kTimeout = "Timeout";
inline constexpr std::string_view kTooManyRequests = "TooManyRequests";
inline constexpr std::string_view kBadRequest = "BadRequest";
inline constexpr std::string_view kMethodNotAllowed = "MethodNotAllowed";
inline constexpr std::string_view kNotAcceptable = "NotAcceptable";
inline constexpr std::string_view kRequestEntityTooLarge = "RequestEntityTooLarge";
inline constexpr std::string_view kUnsupportedMediaType = "UnsupportedMediaType";
inline constexpr std::string_view kInternalError = "InternalError";
inline constexpr std::string_view kServiceUnavailable = "ServiceUnavailable";
}  // namespace reason

/// One reason for an error, often naming a field ("spec.replicas").
struct StatusCause {
  std::string reason;  ///< CauseType, e.g. "FieldValueRequired"
  std::string message;
  std::string field;
  bool operator==(const StatusCause&) const = default;
};

/// metav1.StatusDetails. `kind` holds the resource (plural) for most errors, the Kind for Invalid.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  std::int32_t retry_after_seconds = 0;
  bool operator==(const StatusDetails&) const = default;
};

struct Status {
  std::string status;  ///< "Success" or "Failure"
  std::string message;
  std::string reason;  ///< one of rg::client::reason, or empty
  std::optional<StatusDetails> details;
  std::int32_t code = 0;  ///< the HTTP status code
  // ListMeta: a 410 for an expired continue token may carry a fresh token.
  std::string resource_version;
  std::string continue_;
  bool operator==(const Status&) const = default;
};

/// Encodes as the API server does: kind, apiVersion, metadata, status, message, reason, details,
/// code, with empty fields omitted (metadata is always present, possibly `{}`).
boost::json::value to_json(const Status& status);

/// Decodes an object whose `kind` is "Status"; anything else (another kind, not an object,
/// fields of the wrong type) gives nullopt, so callers can fall back to treating it as text.
std::optional<Status> status_from_json(const boost::json::value& value);

/// Parses `body` as JSON and then as a Status; nullopt when it is neither.
std::optional<Status> parse_status(std::string_view body);

// Boost.JSON customisation points: boost::json::value_from(status) / value_to<Status>(json).
// value_to throws std::invalid_argument when the value is not a Status.
void tag_invoke(const boost::json::value_from_tag&, boost::json::value& json, const Status& status);
Status tag_invoke(const boost::json::value_to_tag<Status>&, const boost::json::value& json);

}  // namespace rg::client
