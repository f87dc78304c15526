// HttpRequest, HttpResponse and ResponseStream: the HTTP surface the API handlers see, free of
// Beast so handler files stay light. http_server.cpp adapts Beast connections to it.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rg::sim {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// The client certificate a TLS peer presented, checked once per connection in the handshake
/// against the client CA (kube-apiserver's --client-ca-file). The authenticator decides what it
/// means; the handshake itself never fails over a client certificate (TLS RequestClientCert).
struct PeerCertificate {
  std::string verify_error;  ///< why it did not verify against the client CA; empty = verified
  std::string identifier;    ///< "SN=..., SKID=..., AKID=..." as the API server logs it
  std::string fingerprint;   ///< hex SHA-256 of the DER certificate
  std::string common_name;   ///< subject CN: the user name
  std::vector<std::string> organizations;  ///< subject O entries: the groups
  std::vector<std::string> uids;           ///< subject attribute 1.3.6.1.4.1.57683.2: the uid
};

struct HttpRequest {
  std::string method;                                      ///< "GET", "POST", ...
  std::string target;                                      ///< as sent: path and query
  std::string path;                                        ///< percent-decoded path
  std::vector<std::pair<std::string, std::string>> query;  ///< decoded, in order
  Headers headers;                                         ///< names lower-case
  std::string body;
  /// The connection's client certificate; null for plain HTTP or when the peer sent none.
  std::shared_ptr<const PeerCertificate> peer_certificate;
  /// The user the request acts as (after impersonation), set by the auth filter; read by the
  /// fault injection's partitions.
  std::string user;
  /// When the whole request had been read (wall clock): when it arrived, for the write record.
  std::chrono::system_clock::time_point received;

  /// The first value of a query parameter.
  std::optional<std::string_view> param(std::string_view name) const;
  /// A header value ("" when absent); `name` lower-case.
  std::string_view header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  Headers headers;  ///< Content-Length is added by the server
  std::string body;
};

/// Where a handler writes its response: either one complete response, or a chunked stream
/// (begin, chunk..., end) whose status line and headers are flushed by begin(). Arguments are
/// references to the caller's objects (no temporaries in co_await expressions: g++ 12 bug).
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  /// Sends `response`, moving from it.
  virtual boost::asio::awaitable<void> send(HttpResponse& response) = 0;
  virtual boost::asio::awaitable<void> begin(int status, const Headers& headers) = 0;
  /// Writes one chunk made of `parts` back to back (gathered, not copied). Empty = no-op.
  virtual boost::asio::awaitable<void> chunk(std::span<const std::string_view> parts) = 0;
  virtual boost::asio::awaitable<void> end() = 0;
  /// Completes when the client closes or resets the connection (or the server closes it).
  /// Cancellable: race it against the work with `||`.
  virtual boost::asio::awaitable<void> wait_closed() = 0;
  virtual boost::asio::any_io_executor executor() = 0;
};

/// Percent-decodes a URL component ('+' stays '+', as Go's PathUnescape).
std::string url_decode(std::string_view text, bool plus_is_space);
/// Splits a request target into decoded path and query parameters.
void parse_target(std::string_view target, std::string& path,
                  std::vector<std::pair<std::string, std::string>>& query);

}  // namespace rg::sim
