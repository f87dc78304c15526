// ServerAddress: RestConfig::host ("https://10.0.0.1:6443", "http://[::1]:8080/prefix") split
// into what a connection needs.
#pragma once

#include <string>
#include <string_view>

namespace rg::client {

struct ServerAddress {
  bool tls = true;
  std::string host;                 ///< without brackets: "10.0.0.1", "::1", "api.example.com"
  std::string port;                 ///< "6443"; defaults to 443 / 80 by scheme
  std::string base_path;            ///< path prefix without the trailing '/', often empty
  std::string host_header() const;  ///< "host:port", IPv6 bracketed
};

/// Parses "scheme://host[:port][/path]"; a missing scheme means https (as kubectl does).
/// Throws std::invalid_argument naming what is wrong (unknown scheme, empty host, bad port).
ServerAddress parse_server_address(std::string_view url);

}  // namespace rg::client
