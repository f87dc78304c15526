// The non-template parts of Reflector<T> (see reflector.hpp): classifying failures for the state
// machine, and logging its status reports.
#include "informer/reflector.hpp"

#include <spdlog/spdlog.h>

namespace rg::informer::detail {

namespace {

reflector::Error by_code(int code, std::string message,
                         std::optional<std::chrono::seconds> retry_after, bool watch_list_request,
                         std::string_view reason) {
  using reflector::ErrorKind;
  reflector::Error error{ErrorKind::kServerError, std::move(message), std::nullopt};
  if (code == 410 || reason == "Expired" || reason == "Gone") {
    error.kind = ErrorKind::kGone;
  } else if (code == 403) {
    error.kind = ErrorKind::kForbidden;
  } else if (code == 401) {
    error.kind = ErrorKind::kUnauthorized;
  } else if (code == 429) {
    error.kind = ErrorKind::kTooManyRequests;
    if (retry_after) error.retry_after = *retry_after;
  } else if (code >= 400 && code < 500 && watch_list_request) {
    // A server without WatchList (or one that rejects its parameters) answers 4xx: fall back.
    error.kind = ErrorKind::kWatchListRefused;
  }
  return error;
}

}  // namespace

reflector::Error classify_error(const std::exception& error, bool watch_list_request) {
  if (const auto* api = dynamic_cast<const client::ApiError*>(&error)) {
    return by_code(api->code(), api->what(), api->retry_after(), watch_list_request, api->reason());
  }
  return {reflector::ErrorKind::kTransport, error.what(), std::nullopt};
}

reflector::Error classify_status(const client::Status& status) {
  std::optional<std::chrono::seconds> retry_after;
  if (status.details && status.details->retry_after_seconds > 0) {
    retry_after = std::chrono::seconds(status.details->retry_after_seconds);
  }
  return by_code(status.code, "watch ERROR event: " + status.message, retry_after, false,
                 status.reason);
}

void report_status(const std::string& resource, const reflector::ReportStatus& report) {
  if (!report.log) return;
  if (report.health == reflector::Health::kHealthy) {
    spdlog::info("reflector {}: {}", resource, report.message);
  } else {
    spdlog::warn("reflector {}: {}: {}", resource, reflector::to_string(report.health),
                 report.message);
  }
}

void report_projection_failure(const std::string& resource, std::size_t count, std::string_view key,
                               std::string_view error) {
  if (count == 1) {
    spdlog::warn("reflector {}: {} is left out of the cache: its projection failed: {}", resource,
                 key, error);
  } else {
    spdlog::warn(
        "reflector {}: {} objects of a LIST page are left out of the cache: their projection "
        "failed; the first, {}: {}",
        resource, count, key, error);
  }
}

}  // namespace rg::informer::detail
