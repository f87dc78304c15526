// Fuzzes the label selector parser. Properties: bad selectors fail only with SelectorError; a
// selector that parses prints back (to_string) to one that parses to the same selector and
// prints the same, and both match the same label sets (here: labels built from its own terms).
#include <cstddef>
#include <cstdint>
#include <string>

#include "client/labels/label_selector.hpp"
#include "test/fuzz/selector_round_trip.hpp"

namespace {

using namespace rg::client;

/// Label sets that exercise each term: every key with each of its values, and without it.
void check_same_matches(const LabelSelector& a, const LabelSelector& b) {
  Labels labels;
  auto check = [&] { RG_FUZZ_CHECK(a.matches(labels) == b.matches(labels), a.to_string()); };
  check();
  for (const auto& requirement : a.requirements()) {
    for (const auto& value : requirement.values) {
      labels[requirement.key] = value;
      check();
    }
    labels[requirement.key] = std::to_string(requirement.bound);
    check();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = rg::fuzz::parse_printing_back<LabelSelector>(rg::fuzz::as_text(data, size));
  if (!parsed) return 0;
  const LabelSelector& selector = *parsed;
  check_same_matches(selector, LabelSelector::parse(selector.to_string()));
  return 0;
}
