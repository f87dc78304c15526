// Tests of BodyFraming: chunked coding fed byte by byte and whole, extensions and trailers,
// Content-Length and until-close bodies, and every kind of invalid framing.
#include "client/transport/body_framing.hpp"

#include <doctest/doctest.h>
#include <boost/beast/http/error.hpp>

#include <string>

using rg::client::BodyFraming;
namespace http = boost::beast::http;

namespace {

struct Decoded {
  std::string body;
  bool done = false;
  boost::system::error_code ec;
  std::size_t pieces = 0;
};

// Feeds `wire` in pieces of `step` bytes (0 = all at once), as reads would deliver it.
Decoded decode(BodyFraming framing, std::string_view wire, std::size_t step = 0) {
  Decoded out;
  while (!wire.empty() && !out.ec) {
    const std::size_t size = step == 0 ? wire.size() : std::min(step, wire.size());
    std::string_view input = wire.substr(0, size);
    wire.remove_prefix(size);
    while (!input.empty() && !out.ec && !framing.done()) {
      const std::string_view piece = framing.next(input, out.ec);
      if (!piece.empty()) ++out.pieces;
      out.body += piece;
    }
    if (framing.done()) break;
  }
  out.done = framing.done();
  return out;
}

}  // namespace

TEST_CASE("body framing: chunked bodies decode whole and byte by byte") {
  const std::string wire = "5\r\nhello\r\n1;name=value\r\n,\r\nA\r\n world!!!!\r\n0\r\n\r\n";
  for (std::size_t step : {0, 1, 2, 3, 7}) {
    CAPTURE(step);
    const auto decoded = decode(BodyFraming::chunked(), wire, step);
    CHECK_FALSE(decoded.ec);
    CHECK(decoded.done);
    CHECK(decoded.body == "hello, world!!!!");
  }
}

TEST_CASE("body framing: body bytes are views of the input, one run per chunk") {
  const std::string wire = "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n";
  BodyFraming framing = BodyFraming::chunked();
  std::string_view input = wire;
  boost::system::error_code ec;
  const auto first = framing.next(input, ec);
  CHECK(first == "abc");
  CHECK(first.data() == wire.data() + 3);
  CHECK(framing.next(input, ec) == "def");
  CHECK(framing.next(input, ec).empty());
  CHECK(framing.done());
  CHECK(input.empty());
  CHECK_FALSE(ec);
}

TEST_CASE("body framing: upper-case sizes, extensions with whitespace, trailers") {
  const auto decoded = decode(BodyFraming::chunked(),
                              "1A \t;ext\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                              "0;last\r\nX-Trailer: 1\r\nY: 2\r\n\r\n");
  CHECK_FALSE(decoded.ec);
  CHECK(decoded.done);
  CHECK(decoded.body == "abcdefghijklmnopqrstuvwxyz");
}

TEST_CASE("body framing: bytes after the body stay in the input") {
  BodyFraming framing = BodyFraming::chunked();
  std::string_view input = "0\r\n\r\nHTTP/1.1";
  boost::system::error_code ec;
  CHECK(framing.next(input, ec).empty());
  CHECK(framing.done());
  CHECK(input == "HTTP/1.1");
}

TEST_CASE("body framing: an unfinished chunked body is not done") {
  for (const char* wire : {"5\r\nhel", "5\r\nhello", "5\r\nhello\r\n", "0\r\n", "0\r\nX: 1\r\n"}) {
    CAPTURE(wire);
    const auto decoded = decode(BodyFraming::chunked(), wire);
    CHECK_FALSE(decoded.ec);
    CHECK_FALSE(decoded.done);
    CHECK_FALSE(BodyFraming::chunked().ends_at_close());
  }
}

TEST_CASE("body framing: invalid chunked framing is an error") {
  for (const char* wire :
       {"x\r\n", "\r\n", "5\nhello\r\n", "5\r\nhelloXY", "5\r\nhello\rX", "5;ext\nhello",
        "0\r\nX: 1\nY", "0\r\n\rX", "5\r\r", "10000000000000000\r\n"}) {
    CAPTURE(wire);
    const auto decoded = decode(BodyFraming::chunked(), wire);
    CHECK(decoded.ec == http::error::bad_chunk);
    CHECK_FALSE(decoded.done);
  }
}

TEST_CASE("body framing: the largest chunk size is accepted") {
  BodyFraming framing = BodyFraming::chunked();
  std::string_view input = "FFFFFFFFFFFFFFFF\r\nabc";
  boost::system::error_code ec;
  CHECK(framing.next(input, ec) == "abc");
  CHECK_FALSE(ec);
  CHECK_FALSE(framing.done());
}

TEST_CASE("body framing: overlong chunk extensions and trailers are refused") {
  const std::string long_text(BodyFraming::kMaxLineBytes + 1, 'x');
  CHECK(decode(BodyFraming::chunked(), "5;" + long_text).ec == http::error::header_limit);
  CHECK(decode(BodyFraming::chunked(), "0\r\nX: " + long_text).ec == http::error::header_limit);
}

TEST_CASE("body framing: Content-Length bodies end after their length") {
  const auto decoded = decode(BodyFraming::length(5), "helloEXTRA", 2);
  CHECK(decoded.done);
  CHECK(decoded.body == "hello");
  CHECK(BodyFraming::length(0).done());
  CHECK_FALSE(BodyFraming::length(5).ends_at_close());
  CHECK_FALSE(decode(BodyFraming::length(5), "hel").done);
}

TEST_CASE("body framing: until-close bodies take everything and end only at the close") {
  BodyFraming framing = BodyFraming::until_close();
  std::string_view input = "all of it";
  boost::system::error_code ec;
  CHECK(framing.next(input, ec) == "all of it");
  CHECK(input.empty());
  CHECK_FALSE(framing.done());
  CHECK(framing.ends_at_close());
  CHECK(BodyFraming::none().done());
}
