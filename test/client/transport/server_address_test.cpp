// Tests of parsing the API server URL.
#include "client/transport/server_address.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using rg::client::parse_server_address;

TEST_CASE("server address: scheme, host, port and path prefix") {
  const auto https = parse_server_address("https://10.0.0.1:6443");
  CHECK(https.tls);
  CHECK(https.host == "10.0.0.1");
  CHECK(https.port == "6443");
  CHECK(https.base_path.empty());
  CHECK(https.host_header() == "10.0.0.1:6443");

  const auto http = parse_server_address("http://localhost");
  CHECK_FALSE(http.tls);
  CHECK(http.port == "80");

  const auto bare = parse_server_address("api.example.com");
  CHECK(bare.tls);
  CHECK(bare.port == "443");

  const auto ipv6 = parse_server_address("https://[::1]:8443/k8s/clusters/c-1/");
  CHECK(ipv6.host == "::1");
  CHECK(ipv6.port == "8443");
  CHECK(ipv6.base_path == "/k8s/clusters/c-1");
  CHECK(ipv6.host_header() == "[::1]:8443");
}

TEST_CASE("server address: bad URLs are refused with the reason") {
  CHECK_THROWS_WITH_AS(parse_server_address("ftp://x"), doctest::Contains("unsupported scheme"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_server_address("https://:6443"), doctest::Contains("no host"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_server_address("https://h:99999"), doctest::Contains("bad port"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_server_address("https://h:x"), doctest::Contains("bad port"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_server_address("https://[::1"), doctest::Contains("IPv6"),
                       std::invalid_argument);
}
