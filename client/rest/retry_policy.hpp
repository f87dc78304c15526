// RetryPolicy: when the REST client sends a request again after the server asked it to wait.
//
// Defaults, and why:
// - Only 429 (Too Many Requests) and 503 (Service Unavailable) answers that carry a numeric
//   Retry-After header are retried, after exactly that many seconds. client-go's checkWait also
//   waits only when the server says how long; the API server always sends Retry-After with its
//   429s (API Priority and Fairness, max-in-flight, and Status errors with retryAfterSeconds).
// - 429 is retried for every verb, POST and PATCH included: APF and max-in-flight reject a
//   request before any handler runs, so nothing was done. 503 is retried only for safe verbs
//   (GET, which covers get/list/watch, and HEAD): a 503 can come from a proxy or an aggregated
//   API server after a write was partly applied. (client-go also retries writes on 5xx with
//   Retry-After; replica-guard prefers not to risk duplicate writes.)
// - At most 10 retries per request, client-go's default (rest.Request maxRetries = 10).
// - Never beyond the request's deadline: a Retry-After that would end after it fails at once.
// - A single wait is capped at max_wait (60 s): a bigger Retry-After is usually a mistake and
//   the caller's own backoff (reflector, workqueue) is the better place to wait that long.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace rg::client {

struct RetryPolicy {
  int max_retries = 10;
  std::chrono::seconds max_wait{60};
};

/// GET and HEAD: requests with no effect on the server.
bool is_safe_method(std::string_view method);
/// GET, HEAD, PUT, DELETE, OPTIONS (RFC 9110): sending twice has the effect of sending once, so
/// they may be replayed on a fresh connection when a kept-alive one turns out to be closed.
bool is_idempotent_method(std::string_view method);

/// How long to wait before retry number `retries_done + 1`, or nullopt to give up and report the
/// error. `retry_after` is the raw Retry-After header (empty when absent).
std::optional<std::chrono::seconds> retry_delay(const RetryPolicy& policy, std::string_view method,
                                                int http_status, std::string_view retry_after,
                                                int retries_done);

}  // namespace rg::client
