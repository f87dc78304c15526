// BodyReader: an HTTP response whose body is read piece by piece as it arrives (a watch, a
// large LIST), so nothing buffers the whole body. Chunked transfer coding is already removed.
// Reads are large (256 KiB) and the body's deadline is one watchdog timer per body, so a fast
// stream costs few system calls and no timer work per read.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "client/transport/http_message.hpp"

namespace rg::client {

class BodyReader {
 public:
  struct State;  // defined in response_state.hpp (Beast types)

  BodyReader();
  explicit BodyReader(std::unique_ptr<State> state);
  BodyReader(BodyReader&&) noexcept;
  BodyReader& operator=(BodyReader&&) noexcept;
  ~BodyReader();  ///< closes the connection unless the body was read to its end

  int status() const;
  const HttpHeaders& headers() const;
  std::string_view header(std::string_view name) const { return find_header(headers(), name); }

  /// The next piece of the body (at most 256 KiB, a view into the connection's read buffer: no
  /// copy), valid until the next call; empty at the body's clean end.
  /// Throws TransportError: kTruncatedBody when the connection ends mid-body (e.g. before the
  /// terminating zero-size chunk), kTimeout past the deadline, kCancelled when cancelled (the
  /// connection is closed at once). After the end, returns empty again.
  boost::asio::awaitable<std::string_view> read_some();

  /// Reads the rest of the body; throws TransportError(kProtocol) if it exceeds `limit` bytes.
  boost::asio::awaitable<std::string> read_all(std::size_t limit);

  /// read_all() with the status and headers: the whole response.
  boost::asio::awaitable<HttpResponse> read_response(std::size_t limit);

  /// Deadline for the remaining body reads; kNoDeadline (the default for watches) = none.
  void set_deadline(Deadline deadline);

  /// True once read_some() has returned the clean end.
  bool done() const;

  /// Abandons the body and closes the connection now.
  void close();

 private:
  std::unique_ptr<State> state_;
};

}  // namespace rg::client
