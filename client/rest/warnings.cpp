// Parsing of Warning header values: warn-code SP warn-agent SP quoted-text [SP warn-date].
#include "client/rest/warnings.hpp"

namespace rg::client {
namespace {

void skip_spaces(std::string_view& text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
}

// Reads a token up to a space or comma.
std::string_view token(std::string_view& text) {
  std::size_t end = 0;
  while (end < text.size() && text[end] != ' ' && text[end] != ',') ++end;
  const auto word = text.substr(0, end);
  text.remove_prefix(end);
  return word;
}

// Reads a quoted-string (with backslash escapes); false when `text` does not start with one.
bool quoted(std::string_view& text, std::string& out) {
  if (text.empty() || text.front() != '"') return false;
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i];
    } else if (text[i] == '"') {
      text.remove_prefix(i + 1);
      return true;
    } else {
      out += text[i];
    }
  }
  return false;
}

// Skips to just after the next comma outside a quoted string.
void skip_element(std::string_view& text) {
  bool in_quotes = false;
  while (!text.empty()) {
    const char c = text.front();
    text.remove_prefix(1);
    if (in_quotes && c == '\\' && !text.empty()) {
      text.remove_prefix(1);
    } else if (c == '"') {
      in_quotes = !in_quotes;
    } else if (c == ',' && !in_quotes) {
      return;
    }
  }
}

}  // namespace

std::vector<std::string> parse_warnings(std::string_view header) {
  std::vector<std::string> warnings;
  while (!header.empty()) {
    skip_spaces(header);
    const auto code = token(header);
    skip_spaces(header);
    token(header);  // the agent, "-" from the API server
    skip_spaces(header);
    std::string text;
    if (code == "299" && quoted(header, text)) warnings.push_back(std::move(text));
    skip_element(header);  // an optional date, then the comma
  }
  return warnings;
}

}  // namespace rg::client
