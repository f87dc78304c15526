// FieldSelector: a parsed Kubernetes field selector (`metadata.name=x,spec.nodeName!=y`), with
// only the operators Kubernetes allows for fields (=, ==, !=) and its backslash escaping of
// ',', '=' and '\' in values (apimachinery's pkg/fields).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::client {

struct FieldRequirement {
  std::string field;   ///< e.g. "spec.nodeName"; which fields exist is up to the resource
  bool equals = true;  ///< `=` / `==` when true, `!=` when false
  std::string value;   ///< unescaped

  std::string to_string() const;  ///< `field=value` or `field!=value`, the value escaped
  friend bool operator==(const FieldRequirement&, const FieldRequirement&) = default;
};

class FieldSelector {
 public:
  /// The empty selector: matches everything.
  FieldSelector() = default;

  /// Parses `f1=v1,f2!=v2`; throws SelectorError naming the term and the problem. Terms are
  /// kept in sorted order, like apimachinery's ParseSelector.
  static FieldSelector parse(std::string_view selector);

  /// True when every requirement holds. `get(std::string_view field)` returns the object's
  /// value of that field as a std::string_view; an absent field is the empty string.
  template <class FieldGetter>
  bool matches(FieldGetter&& get) const {
    for (const auto& r : requirements_) {
      std::string_view actual = get(std::string_view(r.field));
      if ((actual == r.value) != r.equals) return false;
    }
    return true;
  }

  /// The value `field` must equal for this selector to match, if it has such a term
  /// (RequiresExactMatch: lets an index answer `spec.nodeName=n1` directly).
  std::optional<std::string_view> requires_exact_match(std::string_view field) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  std::string to_string() const;

  friend bool operator==(const FieldSelector&, const FieldSelector&) = default;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace rg::client
