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

/// Each label set is matched against every requirement: checking one per value of every
/// requirement would make the harness, not the parser, quadratic in the input's length (a
/// 5.9 KB selector took 1.3 s under ASan). The first label sets exercise the first terms.
constexpr std::size_t kMaxLabelSets = 64;

/// Label sets that exercise each term: every key with each of its values, and without it.
void check_same_matches(const LabelSelector& a, const LabelSelector& b) {
  Labels labels;
  std::size_t checked = 0;
  auto check = [&] {
    RG_FUZZ_CHECK(a.matches(labels) == b.matches(labels), a.to_string());
    return ++checked < kMaxLabelSets;
  };
  if (!check()) return;
  for (const auto& requirement : a.requirements()) {
    for (const auto& value : requirement.values) {
      labels[requirement.key] = value;
      if (!check()) return;
    }
    labels[requirement.key] = std::to_string(requirement.bound);
    if (!check()) return;
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
