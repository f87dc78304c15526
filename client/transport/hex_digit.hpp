// The value of one hexadecimal digit, for the byte-at-a-time parser of HTTP chunk sizes
// (client/transport/body_framing.cpp).
#pragma once

namespace rg::client {

// 0-15 for '0'-'9', 'a'-'f' and 'A'-'F'; -1 for any other byte.
constexpr int hex_digit_value(char byte) {
  if (byte >= '0' && byte <= '9') return byte - '0';
  if (byte >= 'a' && byte <= 'f') return byte - 'a' + 10;
  if (byte >= 'A' && byte <= 'F') return byte - 'A' + 10;
  return -1;
}

}  // namespace rg::client
