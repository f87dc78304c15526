// Query string encoding.
#include "client/rest/query.hpp"

namespace rg::client {

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
        (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' || byte == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

Query& Query::set(std::string_view key, std::string_view value) {
  values_.insert_or_assign(std::string(key), std::string(value));
  return *this;
}

Query& Query::set_if(std::string_view key, std::string_view value) {
  if (!value.empty()) set(key, value);
  return *this;
}

std::string Query::str() const {
  std::string out;
  for (const auto& [key, value] : values_) {
    out += out.empty() ? '?' : '&';
    out += url_encode(key);
    out += '=';
    out += url_encode(value);
  }
  return out;
}

}  // namespace rg::client
