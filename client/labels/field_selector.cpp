// FieldSelector parsing and printing. A term splits at the first `!=`, `==` or `=` (fields cannot
// contain operators); values may escape ',', '=' and '\' with a backslash.
#include "client/labels/field_selector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "client/labels/selector_error.hpp"

namespace rg::client {
namespace {

struct Term {
  std::string_view text;
  std::size_t position;
};

/// Splits at commas not escaped by a backslash.
std::vector<Term> split_terms(std::string_view selector) {
  std::vector<Term> terms;
  std::size_t start = 0;
  for (std::size_t i = 0; i < selector.size(); ++i) {
    if (selector[i] == '\\') {
      ++i;
    } else if (selector[i] == ',') {
      terms.push_back({selector.substr(start, i - start), start});
      start = i + 1;
    }
  }
  terms.push_back({selector.substr(start), start});
  return terms;
}

std::string unescape(std::string_view selector, const Term& term, std::size_t value_offset) {
  std::string out;
  std::string_view value = term.text.substr(value_offset);
  for (std::size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    std::size_t position = term.position + value_offset + i;
    if (c == '\\') {
      if (i + 1 == value.size() ||
          (value[i + 1] != '\\' && value[i + 1] != ',' && value[i + 1] != '=')) {
        throw SelectorError(kFieldSelectorKind, selector, position,
                            "invalid escape sequence (only \\\\, \\, and \\= are allowed)");
      }
      out += value[++i];
    } else if (c == '=' || c == ',') {
      throw SelectorError(kFieldSelectorKind, selector, position,
                          fmt::format("'{}' in a value must be escaped as '\\{}'", c, c));
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string FieldRequirement::to_string() const {
  return field + (equals ? "=" : "!=") + escape(value);
}

FieldSelector FieldSelector::parse(std::string_view selector) {
  std::vector<Term> terms = split_terms(selector);
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.text < b.text; });
  FieldSelector result;
  for (const Term& term : terms) {
    if (term.text.empty()) continue;
    std::size_t op = term.text.find_first_of("!=");
    while (op != std::string_view::npos && term.text[op] == '!' &&
           term.text.substr(op, 2) != "!=") {
      op = term.text.find_first_of("!=", op + 1);
    }
    if (op == std::string_view::npos) {
      throw SelectorError(kFieldSelectorKind, selector, term.position,
                          fmt::format("term \"{}\" has no operator (use field=value, "
                                      "field==value or field!=value)",
                                      term.text));
    }
    FieldRequirement r;
    r.field = term.text.substr(0, op);
    std::size_t length = 1;
    if (term.text.substr(op, 2) == "!=") {
      r.equals = false;
      length = 2;
    } else if (term.text.substr(op, 2) == "==") {
      length = 2;
    }
    if (r.field.empty()) {
      throw SelectorError(kFieldSelectorKind, selector, term.position,
                          fmt::format("term \"{}\" has no field name", term.text));
    }
    r.value = unescape(selector, term, op + length);
    result.requirements_.push_back(std::move(r));
  }
  // Sorted as printed, so that to_string() is canonical: `==` prints as `=`, and a raw `a==x`
  // sorts before `a=b` where the printed `a=x` sorts after it.
  std::stable_sort(result.requirements_.begin(), result.requirements_.end(),
                   [](const FieldRequirement& a, const FieldRequirement& b) {
                     return a.to_string() < b.to_string();
                   });
  return result;
}

std::optional<std::string_view> FieldSelector::requires_exact_match(std::string_view field) const {
  for (const auto& r : requirements_) {
    if (r.equals && r.field == field) return std::string_view(r.value);
  }
  return std::nullopt;
}

std::string FieldSelector::to_string() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    out += r.to_string();
  }
  return out;
}

}  // namespace rg::client
