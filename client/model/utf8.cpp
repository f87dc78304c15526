// UTF-8 validity (see utf8.hpp).
#include "client/model/utf8.hpp"

namespace rg::client {

std::size_t utf8_sequence(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = byte(0);
  if (c < 0x80) return 1;
  std::size_t length = c >= 0xC2 && c <= 0xDF   ? 2
                       : c >= 0xE0 && c <= 0xEF ? 3
                       : c >= 0xF0 && c <= 0xF4 ? 4
                                                : 0;
  if (length == 0 || s.size() < length) return 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (c == 0xE0) low = 0xA0;
  if (c == 0xED) high = 0x9F;
  if (c == 0xF0) low = 0x90;
  if (c == 0xF4) high = 0x8F;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view s) {
  for (std::size_t at = 0; at < s.size();) {
    std::size_t n = utf8_sequence(s.substr(at));
    if (n == 0) return at;
    at += n;
  }
  return std::nullopt;
}

}  // namespace rg::client
