// The selector harnesses' shared property: a selector that parses prints (to_string) to one that
// parses to the same selector and prints the same.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "client/labels/selector_error.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace rg::fuzz {

/// The selector `text` parses to, checked to print back to itself; nullopt when it does not
/// parse (SelectorError, the only error allowed).
template <class Selector>
std::optional<Selector> parse_printing_back(std::string_view text) {
  Selector selector;
  try {
    selector = Selector::parse(text);
  } catch (const client::SelectorError&) {
    return std::nullopt;
  }
  std::string printed = selector.to_string();
  Selector reparsed;
  try {
    reparsed = Selector::parse(printed);
  } catch (const client::SelectorError& e) {
    property_failed("the printed selector parses", printed + ": " + e.what());
  }
  RG_FUZZ_CHECK(reparsed == selector, "printed and parsed again, the selector differs: " + printed);
  RG_FUZZ_CHECK(reparsed.to_string() == printed, printed);
  return selector;
}

}  // namespace rg::fuzz
