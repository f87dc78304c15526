// Tests of Warning header parsing.
#include "client/rest/warnings.hpp"

#include <doctest/doctest.h>

using rg::client::parse_warnings;
using Texts = std::vector<std::string>;

TEST_CASE("warnings: the API server's 299 warnings, one or several per header") {
  CHECK(parse_warnings(R"(299 - "unknown field \"spec.foo\"")") ==
        Texts{R"(unknown field "spec.foo")"});
  CHECK(parse_warnings(R"(299 - "a, with comma", 299 - "b")") == Texts{"a, with comma", "b"});
  CHECK(parse_warnings(R"(299 - "dated" "Wed, 21 Oct 2015 07:28:00 GMT", 299 - "next")") ==
        Texts{"dated", "next"});
}

TEST_CASE("warnings: other codes and malformed values give nothing, never a crash") {
  CHECK(parse_warnings(R"(199 agent "stale")").empty());
  CHECK(parse_warnings("").empty());
  CHECK(parse_warnings(",,,").empty());
  CHECK(parse_warnings("299 - unquoted").empty());
  CHECK(parse_warnings(R"(299 - "unterminated)").empty());
  CHECK(parse_warnings(R"(garbage, 299 - "ok")") == Texts{"ok"});
}
