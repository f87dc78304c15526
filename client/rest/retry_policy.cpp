// The retry decision.
#include "client/rest/retry_policy.hpp"

#include <charconv>

namespace rg::client {

bool is_safe_method(std::string_view method) { return method == "GET" || method == "HEAD"; }

bool is_idempotent_method(std::string_view method) {
  return is_safe_method(method) || method == "PUT" || method == "DELETE" || method == "OPTIONS";
}

std::optional<std::chrono::seconds> retry_delay(const RetryPolicy& policy, std::string_view method,
                                                int http_status, std::string_view retry_after,
                                                int retries_done) {
  if (retries_done >= policy.max_retries) return std::nullopt;
  const bool retriable = http_status == 429 || (http_status == 503 && is_safe_method(method));
  if (!retriable) return std::nullopt;
  while (!retry_after.empty() && retry_after.front() == ' ') retry_after.remove_prefix(1);
  while (!retry_after.empty() && retry_after.back() == ' ') retry_after.remove_suffix(1);
  long long seconds = -1;
  const auto [end, ec] =
      std::from_chars(retry_after.data(), retry_after.data() + retry_after.size(), seconds);
  if (retry_after.empty() || ec != std::errc() || end != retry_after.data() + retry_after.size() ||
      seconds < 0) {
    return std::nullopt;  // absent, an HTTP-date, or garbage: the server did not say how long
  }
  return std::min(std::chrono::seconds(seconds), policy.max_wait);
}

}  // namespace rg::client
