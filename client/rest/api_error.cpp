// Building ApiErrors from HTTP answers, and the error predicates.
#include "client/rest/api_error.hpp"

#include <charconv>

#include "client/text.hpp"
#include "client/transport/transport_error.hpp"

namespace rg::client {
namespace {

std::string describe(int http_status, const Status& status) {
  std::string text = status.message.empty()
                         ? "the server responded with status " + std::to_string(http_status)
                         : status.message;
  if (!status.reason.empty()) text += " (" + status.reason + ")";
  return text;
}

// Reasons apimachinery knows; any other reason falls back to the HTTP code in the predicates.
bool is_well_known(std::string_view reason) {
  for (const auto known :
       {reason::kUnauthorized, reason::kForbidden, reason::kNotFound, reason::kAlreadyExists,
        reason::kConflict, reason::kGone, reason::kExpired, reason::kInvalid,
        reason::kServerTimeout, reason::kTimeout, reason::kTooManyRequests, reason::kBadRequest,
        reason::kMethodNotAllowed, reason::kNotAcceptable, reason::kRequestEntityTooLarge,
        reason::kUnsupportedMediaType, reason::kInternalError, reason::kServiceUnavailable}) {
    if (reason == known) return true;
  }
  return false;
}

bool matches(const std::exception& error, std::string_view reason, int code) {
  const auto* api = dynamic_cast<const ApiError*>(&error);
  if (api == nullptr) return false;
  if (api->reason() == reason) return true;
  return code != 0 && !is_well_known(api->reason()) && api->code() == code;
}

}  // namespace

ApiError::ApiError(int http_status, Status status)
    : std::runtime_error(describe(http_status, status)),
      http_status_(http_status),
      status_(std::move(status)) {}

std::optional<std::chrono::seconds> ApiError::retry_after() const {
  if (status_.details && status_.details->retry_after_seconds > 0) {
    return std::chrono::seconds(status_.details->retry_after_seconds);
  }
  return std::nullopt;
}

std::string_view reason_for_code(int http_status) {
  switch (http_status) {
    case 400:
      return reason::kBadRequest;
    case 401:
      return reason::kUnauthorized;
    case 403:
      return reason::kForbidden;
    case 404:
      return reason::kNotFound;
    case 405:
      return reason::kMethodNotAllowed;
    case 406:
      return reason::kNotAcceptable;
    case 409:
      return reason::kConflict;
    case 410:
      return reason::kGone;
    case 413:
      return reason::kRequestEntityTooLarge;
    case 415:
      return reason::kUnsupportedMediaType;
    case 422:
      return reason::kInvalid;
    case 429:
      return reason::kTooManyRequests;
    case 500:
      return reason::kInternalError;
    case 503:
      return reason::kServiceUnavailable;
    case 504:
      return reason::kTimeout;
    default:
      return reason::kUnknown;
  }
}

ApiError make_api_error(int http_status, std::string_view body, std::string_view retry_after) {
  auto status = parse_status(body);
  if (!status) {
    status.emplace();
    status->status = "Failure";
    status->code = http_status;
    status->reason = std::string(reason_for_code(http_status));
    const auto text = trim(body);
    status->message = text.empty()
                          ? "the server responded with status " + std::to_string(http_status) +
                                " but did not return more information"
                          : std::string(text);
  }
  if (status->code == 0) status->code = http_status;
  int seconds = 0;
  const auto header = trim(retry_after);
  const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (!header.empty() && ec == std::errc() && end == header.data() + header.size() && seconds > 0) {
    if (!status->details) status->details.emplace();
    status->details->retry_after_seconds = seconds;
  }
  return ApiError(http_status, *std::move(status));
}

bool is_not_found(const std::exception& e) { return matches(e, reason::kNotFound, 404); }
bool is_already_exists(const std::exception& e) { return matches(e, reason::kAlreadyExists, 0); }
bool is_conflict(const std::exception& e) { return matches(e, reason::kConflict, 409); }
bool is_gone(const std::exception& e) {
  return matches(e, reason::kGone, 410) || matches(e, reason::kExpired, 0);
}
bool is_resource_expired(const std::exception& e) { return matches(e, reason::kExpired, 0); }
bool is_invalid(const std::exception& e) { return matches(e, reason::kInvalid, 422); }
bool is_bad_request(const std::exception& e) { return matches(e, reason::kBadRequest, 400); }
bool is_unauthorized(const std::exception& e) { return matches(e, reason::kUnauthorized, 401); }
bool is_forbidden(const std::exception& e) { return matches(e, reason::kForbidden, 403); }
bool is_method_not_allowed(const std::exception& e) {
  return matches(e, reason::kMethodNotAllowed, 405);
}
bool is_not_acceptable(const std::exception& e) { return matches(e, reason::kNotAcceptable, 406); }
bool is_unsupported_media_type(const std::exception& e) {
  return matches(e, reason::kUnsupportedMediaType, 415);
}
bool is_request_entity_too_large(const std::exception& e) {
  return matches(e, reason::kRequestEntityTooLarge, 413);
}
bool is_too_many_requests(const std::exception& e) {
  return matches(e, reason::kTooManyRequests, 429);
}
bool is_internal_error(const std::exception& e) { return matches(e, reason::kInternalError, 500); }
bool is_service_unavailable(const std::exception& e) {
  return matches(e, reason::kServiceUnavailable, 503);
}
bool is_timeout(const std::exception& e) { return matches(e, reason::kTimeout, 504); }
bool is_server_timeout(const std::exception& e) { return matches(e, reason::kServerTimeout, 0); }
bool is_transport_error(const std::exception& e) {
  return dynamic_cast<const TransportError*>(&e) != nullptr;
}

}  // namespace rg::client
