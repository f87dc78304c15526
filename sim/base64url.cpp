// Base64url on the standard codec: the alphabet's two characters swapped, no padding.
#include "sim/base64url.hpp"

#include "client/config/base64.hpp"

namespace rg::sim {

std::string base64url_encode(std::string_view data) {
  std::string text = client::base64_encode(data);
  while (!text.empty() && text.back() == '=') text.pop_back();
  for (auto& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return text;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string standard(text);
  for (auto& c : standard) {
    if (c == '-')
      c = '+';
    else if (c == '_')
      c = '/';
    else if (c == '+' || c == '/' || c == '=')
      return std::nullopt;
  }
  while (standard.size() % 4 != 0) standard.push_back('=');
  return client::base64_decode(standard);
}

}  // namespace rg::sim
