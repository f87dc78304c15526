// RequestObserver: how the REST client reports each attempt, so the operator can keep
// client-go's rest_client_requests_total{code,method} and rest_client_request_duration_seconds
// in Prometheus without the client depending on a metrics library, and hears the server's
// warnings.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace rg::client {

class RequestObserver {
 public:
  virtual ~RequestObserver() = default;

  /// Called once per attempt (a retried request reports each try). `code` is the HTTP status,
  /// or 0 when there was no HTTP answer (transport error). `duration` runs from sending to the
  /// response header (for watches and streamed lists, not the whole stream). May be called
  /// from any thread running the client; implementations must be thread-safe.
  virtual void on_result(std::string_view method, int code, std::chrono::nanoseconds duration) = 0;

  /// Called for each warning the server attached to a response (a `Warning: 299 - "..."`
  /// header: deprecated API, unknown field under fieldValidation=Warn). client-go logs these.
  virtual void on_warning(std::string_view text) { static_cast<void>(text); }
};

/// The `code` label as client-go writes it: "200", ..., or "<error>" for no HTTP answer.
inline std::string code_label(int code) { return code == 0 ? "<error>" : std::to_string(code); }

}  // namespace rg::client
