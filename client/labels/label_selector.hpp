// LabelSelector: a parsed Kubernetes label selector (labels.Selector in apimachinery): the string
// syntax (`app=web,tier in (a,b),!canary`), metav1.LabelSelector's matchLabels/matchExpressions,
// matching against a label set without allocating, and the canonical string form.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/labels/labels.hpp"

namespace boost::json {
class value;
}

namespace rg::client {

enum class SelectorOperator {
  kEquals,        ///< key=value
  kDoubleEquals,  ///< key==value (same meaning, kept for the canonical string)
  kNotEquals,     ///< key!=value (also true when the key is absent)
  kIn,            ///< key in (a,b)
  kNotIn,         ///< key notin (a,b) (also true when the key is absent)
  kExists,        ///< key
  kDoesNotExist,  ///< !key
  kGreaterThan,   ///< key>5 (integer comparison)
  kLessThan,      ///< key<5
};

/// One term of a selector. Values are sorted and unique.
struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kExists;
  std::vector<std::string> values;
  std::int64_t bound = 0;  ///< the integer of kGreaterThan / kLessThan

  /// Validates the key, the values and their number for the operator (NewRequirement's
  /// rules), sorts and dedups the values and parses `bound`. Returns the problem, or empty.
  std::string normalize();

  bool matches(const Labels& labels) const;
  std::string to_string() const;
  friend bool operator==(const SelectorRequirement&, const SelectorRequirement&) = default;
};

/// One entry of metav1.LabelSelector.matchExpressions; `operator_` is In, NotIn, Exists or
/// DoesNotExist.
struct MatchExpression {
  std::string key;
  std::string operator_;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  /// The empty selector: matches everything.
  LabelSelector() = default;

  /// A selector that matches nothing (what a null metav1.LabelSelector converts to).
  static LabelSelector nothing();

  /// Parses the string syntax; throws SelectorError naming the position and the problem.
  /// The empty string is the empty selector.
  static LabelSelector parse(std::string_view selector);

  /// Converts metav1.LabelSelector (LabelSelectorAsSelector): matchLabels become `key=value`,
  /// matchExpressions their operator. Throws SelectorError on an invalid key, value or operator.
  /// Both empty = matches everything.
  static LabelSelector from_match(const Labels& match_labels,
                                  std::span<const MatchExpression> match_expressions = {});

  /// The same for any range of structs with key, operator_ and values members, such as
  /// client/model's LabelSelectorRequirement.
  template <std::ranges::input_range Expressions>
  requires(!std::convertible_to<const Expressions&, std::span<const MatchExpression>>) &&
      requires(const std::ranges::range_value_t<Expressions>& e) {
    std::string(e.key);
    std::string(e.operator_);
    e.values.begin();
  }
  static LabelSelector from_match(const Labels& match_labels, const Expressions& expressions) {
    std::vector<MatchExpression> converted;
    if constexpr (std::ranges::sized_range<Expressions>) {
      converted.reserve(std::ranges::size(expressions));
    }
    for (const auto& e : expressions) {
      converted.push_back({std::string(e.key), std::string(e.operator_),
                           std::vector<std::string>(e.values.begin(), e.values.end())});
    }
    return from_match(match_labels, std::span<const MatchExpression>(converted));
  }

  /// Converts a metav1.LabelSelector in its JSON form; JSON null = nothing.
  static LabelSelector from_json(const boost::json::value& label_selector);

  /// True when every requirement holds. Does not allocate.
  bool matches(const Labels& labels) const;

  /// The value `key` must have for this selector to match, when a requirement pins it to one
  /// value (`key=v`, `key==v`, `key in (v)`); lets a label index answer the selector directly
  /// (client-go's RequiresExactMatch).
  std::optional<std::string_view> requires_exact_match(std::string_view key) const;

  /// True for the selector that matches everything.
  bool empty() const { return !nothing_ && requirements_.empty(); }
  bool matches_nothing() const { return nothing_; }

  /// Canonical form: requirements sorted by key, values sorted, e.g. `app=web,tier in (a,b)`.
  std::string to_string() const;

  const std::vector<SelectorRequirement>& requirements() const { return requirements_; }

  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;

 private:
  explicit LabelSelector(std::vector<SelectorRequirement> requirements);

  std::vector<SelectorRequirement> requirements_;  ///< sorted by key (stable)
  bool nothing_ = false;
};

}  // namespace rg::client
