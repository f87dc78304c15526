// LabelSelector: requirement validation, matching, canonical strings and the conversion from
// metav1.LabelSelector (the parser is in label_selector_parser.cpp).
#include "client/labels/label_selector.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

#include "client/labels/selector_error.hpp"
#include "client/labels/validation.hpp"

namespace rg::client {
namespace {

bool contains(const std::vector<std::string>& sorted, std::string_view value) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), value,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != sorted.end() && *it == value;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return n;
}

// A value set as written between the parentheses. The set of just the empty value is written
// `,` (two empty elements): `()` would parse as the empty set, which is invalid.
std::string join(const std::vector<std::string>& values) {
  if (values.size() == 1 && values.front().empty()) return ",";
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += values[i];
  }
  return out;
}

}  // namespace

std::string SelectorRequirement::normalize() {
  if (std::string problem = label_key_problem(key); !problem.empty()) {
    return fmt::format("key \"{}\": {}", key, problem);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (values.empty()) return "for 'in', 'notin' operators, values set can't be empty";
      break;
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kNotEquals:
      if (values.size() != 1) return "for '=', '==', '!=' operators, exactly one value is required";
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!values.empty()) return "values set must be empty for exists and does not exist";
      break;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      if (values.size() != 1) return "for '>', '<' operators, exactly one value is required";
      auto n = parse_int(values.front());
      if (!n) {
        return fmt::format("for '>', '<' operators, the value must be an integer, not \"{}\"",
                           values.front());
      }
      bound = *n;
      return {};
    }
  }
  for (const auto& v : values) {
    if (std::string problem = label_value_problem(v); !problem.empty()) {
      return fmt::format("value \"{}\" of key \"{}\": {}", v, key, problem);
    }
  }
  return {};
}

bool SelectorRequirement::matches(const Labels& labels) const {
  auto it = labels.find(std::string_view(key));
  bool has = it != labels.end();
  switch (op) {
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kIn:
      return has && contains(values, it->second);
    case SelectorOperator::kNotEquals:
    case SelectorOperator::kNotIn:
      return !has || !contains(values, it->second);
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      if (!has) return false;
      auto n = parse_int(it->second);
      if (!n) return false;
      return op == SelectorOperator::kGreaterThan ? *n > bound : *n < bound;
    }
  }
  return false;
}

std::string SelectorRequirement::to_string() const {
  auto single = [&]() -> const std::string& { return values.front(); };
  switch (op) {
    case SelectorOperator::kEquals:
      return key + "=" + single();
    case SelectorOperator::kDoubleEquals:
      return key + "==" + single();
    case SelectorOperator::kNotEquals:
      return key + "!=" + single();
    case SelectorOperator::kGreaterThan:
      return key + ">" + single();
    case SelectorOperator::kLessThan:
      return key + "<" + single();
    case SelectorOperator::kIn:
      return key + " in (" + join(values) + ")";
    case SelectorOperator::kNotIn:
      return key + " notin (" + join(values) + ")";
    case SelectorOperator::kExists:
      return key;
    case SelectorOperator::kDoesNotExist:
      return "!" + key;
  }
  return key;
}

LabelSelector::LabelSelector(std::vector<SelectorRequirement> requirements)
    : requirements_(std::move(requirements)) {
  std::stable_sort(requirements_.begin(), requirements_.end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
}

LabelSelector LabelSelector::nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

bool LabelSelector::matches(const Labels& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    if (!r.matches(labels)) return false;
  }
  return true;
}

std::optional<std::string_view> LabelSelector::requires_exact_match(std::string_view key) const {
  for (const auto& r : requirements_) {
    bool pinned = r.op == SelectorOperator::kEquals || r.op == SelectorOperator::kDoubleEquals ||
                  (r.op == SelectorOperator::kIn && r.values.size() == 1);
    if (pinned && r.key == key) return std::string_view(r.values.front());
  }
  return std::nullopt;
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    out += r.to_string();
  }
  return out;
}

LabelSelector LabelSelector::from_match(const Labels& match_labels,
                                        std::span<const MatchExpression> match_expressions) {
  std::vector<SelectorRequirement> requirements;
  requirements.reserve(match_labels.size() + match_expressions.size());
  for (const auto& [key, value] : match_labels) {
    SelectorRequirement r{key, SelectorOperator::kEquals, {value}};
    if (std::string problem = r.normalize(); !problem.empty()) {
      throw SelectorError(kLabelSelectorKind, fmt::format("matchLabels[\"{}\"]", key),
                          SelectorError::kNoPosition, std::move(problem));
    }
    requirements.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < match_expressions.size(); ++i) {
    const MatchExpression& e = match_expressions[i];
    auto where = [&] {
      return fmt::format("matchExpressions[{}] (key \"{}\", operator \"{}\")", i, e.key,
                         e.operator_);
    };
    SelectorRequirement r{e.key, SelectorOperator::kIn, e.values};
    if (e.operator_ == "In") {
      r.op = SelectorOperator::kIn;
    } else if (e.operator_ == "NotIn") {
      r.op = SelectorOperator::kNotIn;
    } else if (e.operator_ == "Exists") {
      r.op = SelectorOperator::kExists;
    } else if (e.operator_ == "DoesNotExist") {
      r.op = SelectorOperator::kDoesNotExist;
    } else {
      throw SelectorError(kLabelSelectorKind, where(), SelectorError::kNoPosition,
                          fmt::format("\"{}\" is not a valid label selector operator (use In, "
                                      "NotIn, Exists or DoesNotExist)",
                                      e.operator_));
    }
    if (std::string problem = r.normalize(); !problem.empty()) {
      throw SelectorError(kLabelSelectorKind, where(), SelectorError::kNoPosition,
                          std::move(problem));
    }
    requirements.push_back(std::move(r));
  }
  return LabelSelector(std::move(requirements));
}

LabelSelector LabelSelector::from_json(const boost::json::value& label_selector) {
  if (label_selector.is_null()) return nothing();
  auto bad = [](std::string problem) {
    return SelectorError(kLabelSelectorKind, "metav1.LabelSelector", SelectorError::kNoPosition,
                         std::move(problem));
  };
  const auto* object = label_selector.if_object();
  if (object == nullptr) throw bad("must be a JSON object");
  auto as_string = [&](const boost::json::value& v, std::string_view what) {
    if (!v.is_string()) throw bad(fmt::format("{} must be a string", what));
    return std::string(v.get_string());
  };
  Labels match_labels;
  if (const auto* m = object->if_contains("matchLabels"); m != nullptr && !m->is_null()) {
    if (!m->is_object()) throw bad("matchLabels must be an object");
    for (const auto& [k, v] : m->get_object()) {
      match_labels.emplace(std::string(k), as_string(v, "a matchLabels value"));
    }
  }
  std::vector<MatchExpression> expressions;
  if (const auto* m = object->if_contains("matchExpressions"); m != nullptr && !m->is_null()) {
    if (!m->is_array()) throw bad("matchExpressions must be an array");
    for (const auto& item : m->get_array()) {
      if (!item.is_object()) throw bad("each matchExpressions entry must be an object");
      const auto& o = item.get_object();
      MatchExpression e;
      if (const auto* k = o.if_contains("key")) e.key = as_string(*k, "matchExpressions key");
      if (const auto* op = o.if_contains("operator")) {
        e.operator_ = as_string(*op, "matchExpressions operator");
      }
      if (const auto* vs = o.if_contains("values"); vs != nullptr && !vs->is_null()) {
        if (!vs->is_array()) throw bad("matchExpressions values must be an array");
        for (const auto& v : vs->get_array()) {
          e.values.push_back(as_string(v, "a matchExpressions value"));
        }
      }
      expressions.push_back(std::move(e));
    }
  }
  return from_match(match_labels, expressions);
}

}  // namespace rg::client
