// SelectorError's message: `invalid label selector "a in (b": at position 8: found end of
// string, expected ',' or ')'`, or without the position for selectors built from parts.
#include "client/labels/selector_error.hpp"

#include <fmt/format.h>

namespace rg::client {

SelectorError::SelectorError(std::string_view kind, std::string_view selector, std::size_t position,
                             std::string problem)
    : std::invalid_argument(position == kNoPosition
                                ? fmt::format("invalid {}: {}: {}", kind, selector, problem)
                                : fmt::format("invalid {} \"{}\": at position {}: {}", kind,
                                              selector, position, problem)),
      selector_(selector),
      position_(position),
      problem_(std::move(problem)) {}

}  // namespace rg::client
