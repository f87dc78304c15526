// BodyFraming: takes an HTTP/1.1 response body's framing -- chunked transfer coding,
// Content-Length, or "until the connection closes" -- off the bytes as they arrive and hands back
// views of the body bytes inside them, so the body is never copied on its way to the decoder.
// Pure (no I/O): BodyReader feeds it what the socket read.
#pragma once

#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rg::client {

class BodyFraming {
 public:
  /// A body that is already complete (HEAD, 204, 304, Content-Length: 0).
  static BodyFraming none();
  /// Transfer-Encoding: chunked.
  static BodyFraming chunked();
  /// Content-Length: `length`.
  static BodyFraming length(std::uint64_t length);
  /// Neither: the body ends when the server closes the connection.
  static BodyFraming until_close();

  /// Takes framing and body bytes off the front of `input` and returns the first run of body
  /// bytes it reaches (a view into `input`); empty when `input` is used up by framing alone, or
  /// the body is complete (done()). Call again with the rest of `input` until it is empty.
  /// Invalid framing sets `ec` (boost::beast::http::error::bad_chunk, or header_limit for a
  /// chunk extension or trailer section over kMaxLineBytes); the body is unusable after that.
  std::string_view next(std::string_view& input, boost::system::error_code& ec);

  /// The whole body has been taken (the terminating chunk and trailers, or `length` bytes).
  bool done() const { return state_ == State::kDone; }

  /// The connection ending now is the body's proper end (until_close), not a truncation.
  bool ends_at_close() const { return state_ == State::kUntilClose; }

  /// The most bytes of chunk extensions on one chunk-size line, and of the trailer section.
  static constexpr std::size_t kMaxLineBytes = std::size_t{16} * 1024;

 private:
  enum class State {
    kDone,
    kUntilClose,
    kLength,     // body bytes, `remaining_` left
    kSize,       // the first hex digit of a chunk size
    kSizeMore,   // more hex digits, then whitespace, ';' or CR
    kExtension,  // a chunk extension, up to CR
    kSizeLf,     // the LF ending the chunk-size line
    kData,       // chunk data, `remaining_` left
    kDataCr,     // the CRLF after chunk data
    kDataLf,
    kTrailer,      // the start of a trailer line (CR here ends the body)
    kTrailerLine,  // inside a trailer field line, up to CR
    kTrailerLf,    // the LF ending a trailer field line
    kLastLf,       // the LF of the empty line ending the body
  };

  explicit BodyFraming(State state, std::uint64_t remaining = 0)
      : state_(state), remaining_(remaining) {}

  /// One framing byte; false (with `ec` set) when it is invalid here.
  bool step(char byte, boost::system::error_code& ec);
  bool count_line_byte(boost::system::error_code& ec);

  State state_;
  std::uint64_t remaining_;
  std::size_t line_bytes_ = 0;
};

}  // namespace rg::client
