// Request target parsing and header/parameter lookup.
#include "sim/http_types.hpp"

#include <algorithm>
#include <charconv>

namespace rg::sim {

std::optional<std::string_view> HttpRequest::param(std::string_view name) const {
  for (const auto& [key, value] : query)
    if (key == name) return std::string_view(value);
  return std::nullopt;
}

std::string_view HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return value;
  return {};
}

namespace {

// The byte a "%XY" escape at `at` stands for; nullopt when there is none.
std::optional<char> escaped_byte(std::string_view text, std::size_t at) {
  if (text[at] != '%' || at + 2 >= text.size()) return std::nullopt;
  unsigned value = 0;
  const char* digits = text.data() + at + 1;
  auto [end, ec] = std::from_chars(digits, digits + 2, value, 16);
  if (ec != std::errc() || end != digits + 2) return std::nullopt;
  return static_cast<char>(value);
}

}  // namespace

std::string url_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (auto byte = escaped_byte(text, i)) {
      out += *byte;
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void parse_target(std::string_view target, std::string& path,
                  std::vector<std::pair<std::string, std::string>>& query) {
  auto question = target.find('?');
  path = url_decode(target.substr(0, question), false);
  if (question == std::string_view::npos) return;
  std::string_view rest = target.substr(question + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    query.emplace_back(
        url_decode(pair.substr(0, eq), true),
        eq == std::string_view::npos ? std::string() : url_decode(pair.substr(eq + 1), true));
  }
}

}  // namespace rg::sim
