// ApiError: the API server answered with a non-2xx status. Carries the decoded Status (or one
// synthesised from the HTTP status and text when the body was not a Status, like the plain-text
// 429 of API Priority and Fairness), and predicates in the spirit of apimachinery's
// errors.IsNotFound & co. Transport failures are rg::client::TransportError instead.
#pragma once

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "client/rest/status.hpp"

namespace rg::client {

class ApiError : public std::runtime_error {
 public:
  ApiError(int http_status, Status status);

  int code() const { return http_status_; }  ///< the HTTP status code
  const Status& status() const { return status_; }
  std::string_view reason() const { return status_.reason; }
  std::string_view message() const { return status_.message; }
  /// details.retryAfterSeconds (or the Retry-After header), when the server gave one.
  std::optional<std::chrono::seconds> retry_after() const;

 private:
  int http_status_;
  Status status_;
};

/// The error for an HTTP answer: the body decoded as a Status when it is one (its code filled
/// from the HTTP status if missing), otherwise a Status built from the status code (reason as
/// apimachinery maps it) and the trimmed body text. A numeric Retry-After header is recorded in
/// details.retryAfterSeconds.
ApiError make_api_error(int http_status, std::string_view body, std::string_view retry_after);

/// The reason apimachinery's HTTP-code mapping gives a status without a Status body.
std::string_view reason_for_code(int http_status);

// Predicates: true when `error` is an ApiError with that reason, or with no well-known reason
// and the matching HTTP code (as apimachinery does). Any other exception gives false.
bool is_not_found(const std::exception& error);
bool is_already_exists(const std::exception& error);
bool is_conflict(const std::exception& error);
/// 410 with reason Gone or Expired: the requested resourceVersion or continue token is too old;
/// relist. (client-go's reflector treats both the same.)
bool is_gone(const std::exception& error);
bool is_resource_expired(const std::exception& error);  ///< reason Expired only
bool is_invalid(const std::exception& error);
bool is_bad_request(const std::exception& error);
bool is_unauthorized(const std::exception& error);
bool is_forbidden(const std::exception& error);
bool is_method_not_allowed(const std::exception& error);
bool is_not_acceptable(const std::exception& error);
bool is_unsupported_media_type(const std::exception& error);
bool is_request_entity_too_large(const std::exception& error);
bool is_too_many_requests(const std::exception& error);
bool is_internal_error(const std::exception& error);
bool is_service_unavailable(const std::exception& error);
bool is_timeout(const std::exception& error);         ///< reason Timeout (504)
bool is_server_timeout(const std::exception& error);  ///< reason ServerTimeout
/// The transport failed: no HTTP answer at all.
bool is_transport_error(const std::exception& error);

}  // namespace rg::client
