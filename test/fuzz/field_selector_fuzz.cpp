// Fuzzes the field selector parser. Properties: bad selectors fail only with SelectorError; a
// selector that parses prints back (to_string, values escaped) to one that parses to the same
// requirements and prints the same; it matches an object holding exactly its `=` values unless
// a `!=` term of the same field forbids it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "client/labels/field_selector.hpp"
#include "test/fuzz/selector_round_trip.hpp"

using namespace rg::client;

/// requires_exact_match scans every requirement: asking it for every field would make the
/// harness, not the parser, quadratic in the input's length.
constexpr std::size_t kMaxExactMatchFields = 64;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = rg::fuzz::parse_printing_back<FieldSelector>(rg::fuzz::as_text(data, size));
  if (!parsed) return 0;
  const FieldSelector& selector = *parsed;

  // An object whose fields hold the `=` values (the first, when a field has several).
  std::map<std::string, std::string, std::less<>> fields;
  bool consistent = true;
  for (const auto& r : selector.requirements()) {
    if (!r.equals) continue;
    auto [it, inserted] = fields.emplace(r.field, r.value);
    if (!inserted && it->second != r.value) consistent = false;
  }
  for (const auto& r : selector.requirements()) {
    if (r.equals) continue;
    auto it = fields.find(r.field);
    std::string_view actual = it == fields.end() ? std::string_view() : it->second;
    if (actual == r.value) consistent = false;
  }
  auto get = [&](std::string_view field) -> std::string_view {
    auto it = fields.find(field);
    return it == fields.end() ? std::string_view() : std::string_view(it->second);
  };
  RG_FUZZ_CHECK(selector.matches(get) == consistent, selector.to_string());
  std::size_t asked = 0;
  for (const auto& [field, value] : fields) {
    if (++asked > kMaxExactMatchFields) break;
    auto exact = selector.requires_exact_match(field);
    if (exact && consistent) RG_FUZZ_CHECK(*exact == value, selector.to_string());
  }
  return 0;
}
