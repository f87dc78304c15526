// SelectorError: a label or field selector that cannot be parsed, with the selector text, the
// byte position of the problem and what is wrong.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rg::client {

/// The `kind` of each selector's errors.
inline constexpr std::string_view kLabelSelectorKind = "label selector";
inline constexpr std::string_view kFieldSelectorKind = "field selector";

class SelectorError : public std::invalid_argument {
 public:
  static constexpr std::size_t kNoPosition = static_cast<std::size_t>(-1);

  /// `kind` is kLabelSelectorKind or kFieldSelectorKind; `selector` is the text, or for a selector
  /// built from parts (matchExpressions) the part at fault, with position kNoPosition.
  SelectorError(std::string_view kind, std::string_view selector, std::size_t position,
                std::string problem);

  const std::string& selector() const { return selector_; }
  std::size_t position() const { return position_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string selector_;
  std::size_t position_;
  std::string problem_;
};

}  // namespace rg::client
