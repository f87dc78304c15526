// TransportError: the request never got an HTTP answer (connect refused, TLS failure, timeout,
// connection reset, truncated body, cancellation). Distinct from rg::client::ApiError, which is
// an HTTP answer with a non-2xx status.
#pragma once

#include <boost/system/system_error.hpp>

#include <string>
#include <string_view>

namespace rg::client {

enum class TransportErrorKind {
  kResolve,          ///< the host name did not resolve
  kConnect,          ///< TCP connect failed (refused, unreachable)
  kTls,              ///< TLS handshake failed; certificate problems name the reason
  kTimeout,          ///< the request's deadline passed
  kConnectionReset,  ///< the server closed or reset the connection before answering
  kTruncatedBody,    ///< the connection ended in the middle of a response body
  kProtocol,         ///< the server's bytes were not valid HTTP/1.1
  kCancelled,        ///< the calling coroutine was cancelled
};

std::string_view to_string(TransportErrorKind kind);

class TransportError : public boost::system::system_error {
 public:
  TransportError(TransportErrorKind kind, boost::system::error_code code, const std::string& what)
      : boost::system::system_error(code, what), kind_(kind), message_(what) {}

  TransportErrorKind kind() const { return kind_; }
  /// Only the message it was made with: system_error's own what() would append the error
  /// code's text again and Boost's source location.
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  TransportErrorKind kind_;
  std::string message_;
};

}  // namespace rg::client
