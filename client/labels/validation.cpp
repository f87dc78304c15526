// Label key/value validation with the same rules and messages as apimachinery's
// pkg/util/validation (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain).
#include "client/labels/validation.hpp"

#include <fmt/format.h>

namespace rg::client {
namespace {

constexpr std::size_t kMaxNameLength = 63;
constexpr std::size_t kMaxSubdomainLength = 253;

constexpr std::string_view kQualifiedCharsetText =
    "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], i.e. non-empty, alphanumeric at both ends.
bool is_qualified_token(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

/// [a-z0-9]([-a-z0-9]*[a-z0-9])? for every dot-separated part.
bool is_dns1123_subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !is_lower_alnum(label.front()) || !is_lower_alnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!is_lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string dns1123_subdomain_problem(std::string_view name) {
  if (name.size() > kMaxSubdomainLength) {
    return fmt::format("must be no more than {} characters", kMaxSubdomainLength);
  }
  if (!is_dns1123_subdomain(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com')";
  }
  return {};
}

std::string label_key_problem(std::string_view key) {
  std::string_view name = key;
  std::size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (name.find('/') != std::string_view::npos) {
      return fmt::format(
          "a qualified name must {} (e.g. 'MyName' or 'my.name' or '123-abc') with an optional DNS "
          "subdomain prefix and '/' (e.g. 'example.com/MyName')",
          kQualifiedCharsetText);
    }
    if (prefix.empty()) return "prefix part must be non-empty";
    if (std::string problem = dns1123_subdomain_problem(prefix); !problem.empty()) {
      return "prefix part " + problem;
    }
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kMaxNameLength) {
    return fmt::format("name part must be no more than {} characters", kMaxNameLength);
  }
  if (!is_qualified_token(name)) {
    return fmt::format("name part must {} (e.g. 'MyName' or 'my.name' or '123-abc')",
                       kQualifiedCharsetText);
  }
  return {};
}

std::string label_value_problem(std::string_view value) {
  if (value.size() > kMaxNameLength) {
    return fmt::format("must be no more than {} characters", kMaxNameLength);
  }
  if (!value.empty() && !is_qualified_token(value)) {
    return fmt::format(
        "a valid label must be an empty string or {} (e.g. 'MyValue' or "
        "'my_value' or '12345')",
        kQualifiedCharsetText);
  }
  return {};
}

}  // namespace rg::client
