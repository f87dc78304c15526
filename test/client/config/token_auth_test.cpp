// Tests of base64 and the token AuthProviders, in particular TokenFile following a rotated
// token.
#include <doctest/doctest.h>

#include "client/config/base64.hpp"
#include "client/config/config_error.hpp"
#include "client/config/token_auth.hpp"
#include "test/client/config/temp_dir.hpp"

using namespace rg::client;
using rg::test::run;
using rg::test::TempDir;

TEST_CASE("base64 round trips and rejects bad input") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foob") == "Zm9vYg==");
  CHECK(base64_encode(std::string("\x00\xff\xfe", 3)) == "AP/+");
  CHECK(base64_decode("Zm9vYg==") == "foob");
  CHECK(base64_decode("Zm9v\nYmFy") == "foobar");
  CHECK(base64_decode("AP/+") == std::string("\x00\xff\xfe", 3));
  CHECK(base64_decode("") == "");
  CHECK_FALSE(base64_decode("Zm9").has_value());
  CHECK_FALSE(base64_decode("Zm9*").has_value());
  CHECK_FALSE(base64_decode("Z===").has_value());
  CHECK_FALSE(base64_decode("Zg==Zg==").has_value());
  CHECK_FALSE(base64_decode("Zg=a").has_value());
}

TEST_CASE("static token and basic auth") {
  StaticToken token("abc");
  CHECK(run(token.authorization()) == "Bearer abc");
  BasicAuth basic("user", "pass");
  CHECK(run(basic.authorization()) == "Basic dXNlcjpwYXNz");
}

TEST_CASE("TokenFile follows a rotated token") {
  TempDir dir;
  auto path = dir.write("token", "first\n");
  TokenFile source(path);
  CHECK(run(source.authorization()) == "Bearer first");

  // A rotation changes the size: picked up on the next request.
  dir.write("token", "second-token\n");
  CHECK(source.token() == "second-token");

  // Same size, but a new modification time: picked up too.
  dir.write("token", "third--token\n");
  std::filesystem::last_write_time(
      path, std::filesystem::last_write_time(path) + std::chrono::seconds(5));
  CHECK(source.token() == "third--token");
}

TEST_CASE("TokenFile re-reads after invalidate even when the stamp did not change") {
  TempDir dir;
  auto path = dir.write("token", "aaaa");
  auto stamp = std::filesystem::last_write_time(path);
  TokenFile source(path);
  CHECK(source.token() == "aaaa");
  dir.write("token", "bbbb");
  std::filesystem::last_write_time(path, stamp);
  CHECK(source.token() == "aaaa");  // nothing observable changed, within the minute
  source.invalidate();
  CHECK(source.token() == "bbbb");
}

TEST_CASE("TokenFile keeps the last good token when a re-read fails") {
  TempDir dir;
  auto path = dir.write("token", "good");
  TokenFile source(path);
  CHECK(source.token() == "good");
  std::filesystem::remove(path);
  CHECK(source.token() == "good");
  dir.write("token", "  \n");
  source.invalidate();
  CHECK(source.token() == "good");
  dir.write("token", "fresh");
  source.invalidate();
  CHECK(source.token() == "fresh");
}

TEST_CASE("TokenFile without any token") {
  TempDir dir;
  TokenFile missing(dir / "none");
  CHECK_THROWS_WITH_AS(missing.token(),
                       doctest::Contains("cannot read the token file (check that the file "
                                         "exists, is readable and holds a bearer token)"),
                       ConfigError);
  TokenFile with_fallback(dir / "none", "fallback");
  CHECK(with_fallback.token() == "fallback");
  dir.write("empty", "\n");
  TokenFile empty(dir / "empty");
  CHECK_THROWS_WITH_AS(empty.token(), doctest::Contains("the token file is empty"), ConfigError);
}
