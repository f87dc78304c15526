// Pretty printing (see pretty_print.hpp).
#include "sim/pretty_print.hpp"

#include <array>

namespace rg::sim {
namespace {

bool is_json(const Headers& headers) {
  for (const auto& [name, value] : headers)
    if (name == "Content-Type" || name == "content-type")
      return std::string_view(value).starts_with("application/json");
  return false;
}

void newline(std::string& out, int depth) {
  out += '\n';
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
}

}  // namespace

bool parse_bool_or_false(std::string_view text) {
  constexpr std::array<std::string_view, 6> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  for (auto value : kTrue)
    if (text == value) return true;
  return false;
}

bool pretty_print(const HttpRequest& request) {
  if (auto value = request.param("pretty"); value && !value->empty())
    return parse_bool_or_false(*value);
  const auto agent = request.header("user-agent");
  return agent.starts_with("curl") || agent.starts_with("Wget") || agent.starts_with("Mozilla/5.0");
}

std::string indent_json(std::string_view compact) {
  std::string out;
  out.reserve(compact.size() * 2);
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < compact.size()) {
        out += compact[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        out += c;
        break;
      case '{':
      case '[':
        out += c;
        if (i + 1 < compact.size() && (compact[i + 1] == '}' || compact[i + 1] == ']')) {
          out += compact[++i];  // {} and [] stay as they are
        } else {
          newline(out, ++depth);
        }
        break;
      case '}':
      case ']':
        newline(out, --depth);
        out += c;
        break;
      case ',':
        out += c;
        newline(out, depth);
        break;
      case ':':
        out += ": ";
        break;
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        break;  // insignificant whitespace (the compact encoder's trailing newline)
      default:
        out += c;
    }
  }
  return out;
}

boost::asio::awaitable<void> PrettyStream::send(HttpResponse& response) {
  if (is_json(response.headers)) response.body = indent_json(response.body);
  co_await inner_.send(response);
}

boost::asio::awaitable<void> PrettyStream::begin(int status, const Headers& headers) {
  if (!is_json(headers)) {
    co_await inner_.begin(status, headers);
    co_return;
  }
  gathering_ = true;
  status_ = status;
  headers_ = headers;
}

boost::asio::awaitable<void> PrettyStream::chunk(std::span<const std::string_view> parts) {
  if (!gathering_) {
    co_await inner_.chunk(parts);
    co_return;
  }
  for (auto part : parts) body_.append(part);
}

boost::asio::awaitable<void> PrettyStream::end() {
  if (gathering_) {
    co_await inner_.begin(status_, headers_);
    const std::string indented = indent_json(body_);
    const std::array<std::string_view, 1> parts{indented};
    co_await inner_.chunk(parts);
  }
  co_await inner_.end();
}

}  // namespace rg::sim
