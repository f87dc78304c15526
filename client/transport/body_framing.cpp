// BodyFraming: the chunked-coding state machine (RFC 9112 section 7.1), Content-Length and
// until-close bodies. Body bytes pass through as views; only framing is looked at byte by byte.
#include "client/transport/body_framing.hpp"

#include "client/transport/hex_digit.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <limits>

namespace rg::client {

namespace http = boost::beast::http;

namespace {

bool fail(boost::system::error_code& ec, http::error error) {
  ec = error;
  return false;
}

}  // namespace

BodyFraming BodyFraming::none() { return BodyFraming(State::kDone); }
BodyFraming BodyFraming::chunked() { return BodyFraming(State::kSize); }
BodyFraming BodyFraming::until_close() { return BodyFraming(State::kUntilClose); }
BodyFraming BodyFraming::length(std::uint64_t length) {
  return length == 0 ? none() : BodyFraming(State::kLength, length);
}

std::string_view BodyFraming::next(std::string_view& input, boost::system::error_code& ec) {
  while (!input.empty()) {
    switch (state_) {
      case State::kDone:
        return {};
      case State::kUntilClose: {
        const std::string_view body = input;
        input.remove_prefix(input.size());
        return body;
      }
      case State::kLength:
      case State::kData: {
        const auto size =
            static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size()));
        const std::string_view body = input.substr(0, size);
        input.remove_prefix(size);
        remaining_ -= size;
        if (remaining_ == 0) state_ = state_ == State::kLength ? State::kDone : State::kDataCr;
        return body;
      }
      default: {
        const char byte = input.front();
        input.remove_prefix(1);
        if (!step(byte, ec)) return {};
      }
    }
  }
  return {};
}

bool BodyFraming::count_line_byte(boost::system::error_code& ec) {
  if (++line_bytes_ > kMaxLineBytes) return fail(ec, http::error::header_limit);
  return true;
}

bool BodyFraming::step(char byte, boost::system::error_code& ec) {
  switch (state_) {
    case State::kSize: {
      const int digit = hex_digit_value(byte);
      if (digit < 0) return fail(ec, http::error::bad_chunk);
      remaining_ = static_cast<std::uint64_t>(digit);
      line_bytes_ = 0;
      state_ = State::kSizeMore;
      return true;
    }
    case State::kSizeMore: {
      if (const int digit = hex_digit_value(byte); digit >= 0) {
        if (remaining_ > (std::numeric_limits<std::uint64_t>::max() >> 4)) {
          return fail(ec, http::error::bad_chunk);
        }
        remaining_ = (remaining_ << 4) | static_cast<std::uint64_t>(digit);
        return true;
      }
      if (byte == '\r') {
        state_ = State::kSizeLf;
        return true;
      }
      if (byte != ';' && byte != ' ' && byte != '\t') return fail(ec, http::error::bad_chunk);
      state_ = State::kExtension;
      return count_line_byte(ec);
    }
    case State::kExtension:
      if (byte == '\r') {
        state_ = State::kSizeLf;
        return true;
      }
      if (byte == '\n') return fail(ec, http::error::bad_chunk);
      return count_line_byte(ec);
    case State::kSizeLf:
      if (byte != '\n') return fail(ec, http::error::bad_chunk);
      line_bytes_ = 0;
      state_ = remaining_ == 0 ? State::kTrailer : State::kData;
      return true;
    case State::kDataCr:
      if (byte != '\r') return fail(ec, http::error::bad_chunk);
      state_ = State::kDataLf;
      return true;
    case State::kDataLf:
      if (byte != '\n') return fail(ec, http::error::bad_chunk);
      state_ = State::kSize;
      return true;
    case State::kTrailer:
      if (byte == '\r') {
        state_ = State::kLastLf;
        return true;
      }
      state_ = State::kTrailerLine;
      return count_line_byte(ec);
    case State::kTrailerLine:
      if (byte == '\r') {
        state_ = State::kTrailerLf;
        return true;
      }
      if (byte == '\n') return fail(ec, http::error::bad_chunk);
      return count_line_byte(ec);
    case State::kTrailerLf:
      if (byte != '\n') return fail(ec, http::error::bad_chunk);
      state_ = State::kTrailer;
      return true;
    case State::kLastLf:
      if (byte != '\n') return fail(ec, http::error::bad_chunk);
      state_ = State::kDone;
      return true;
    case State::kDone:
    case State::kUntilClose:
    case State::kLength:
    case State::kData:
      break;  // next() handles these without step()
  }
  return fail(ec, http::error::bad_chunk);
}

}  // namespace rg::client
