// Parsing of the API server URL.
#include "client/transport/server_address.hpp"

#include <charconv>
#include <stdexcept>

namespace rg::client {

std::string ServerAddress::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

ServerAddress parse_server_address(std::string_view url) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("invalid API server URL \"" + std::string(url) + "\": " + what +
                                " (expected https://host:port)");
  };
  ServerAddress address;
  std::string_view rest = url;
  if (const auto scheme_end = rest.find("://"); scheme_end != std::string_view::npos) {
    const auto scheme = rest.substr(0, scheme_end);
    if (scheme == "http") {
      address.tls = false;
    } else if (scheme != "https") {
      fail("unsupported scheme \"" + std::string(scheme) + "\"");
    }
    rest.remove_prefix(scheme_end + 3);
  }
  const auto path_start = rest.find('/');
  std::string_view authority = rest.substr(0, path_start);
  if (path_start != std::string_view::npos) {
    std::string_view path = rest.substr(path_start);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    address.base_path = std::string(path);
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) fail("unterminated IPv6 address");
    address.host = std::string(authority.substr(1, close - 1));
    const auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') fail("unexpected text after the IPv6 address");
      port = after.substr(1);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    address.host = std::string(authority.substr(0, colon));
    port = authority.substr(colon + 1);
  } else {
    address.host = std::string(authority);
  }
  if (address.host.empty()) fail("no host");
  if (port.empty()) {
    address.port = address.tls ? "443" : "80";
  } else {
    unsigned number = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (ec != std::errc() || end != port.data() + port.size() || number == 0 || number > 65535) {
      fail("bad port \"" + std::string(port) + "\"");
    }
    address.port = std::string(port);
  }
  return address;
}

}  // namespace rg::client
