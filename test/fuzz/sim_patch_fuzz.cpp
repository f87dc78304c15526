// Fuzzes kube-sim's PATCH engines. Input: a mode byte, the stored object's JSON, a NUL, the
// patch body (JSON or YAML, as the server parses it). Modes: JSON merge patch, JSON patch,
// strategic merge patch (of a kind picked by the mode byte). Properties: a bad patch fails only
// with ApiError; the patched object's JSON is well formed (serializes and parses back equal);
// a merge patch is idempotent (RFC 7386: applying it again changes nothing).
#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/patch.hpp"
#include "test/fuzz/fuzz_support.hpp"
#include "test/fuzz/patch_kinds.hpp"

using namespace rg::sim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto parts = rg::fuzz::split_parts(rg::fuzz::as_text(data + 1, size - 1), 2);
  if (parts.size() < 2) return 0;
  boost::system::error_code ec;
  boost::json::value stored = boost::json::parse(parts[0], ec);
  if (ec) return 0;  // stored objects are always JSON
  try {
    boost::json::value patch = parse_json_or_yaml(parts[1]);
    boost::json::value patched;
    switch (data[0] % 3) {
      case 0:
        patched = merge_patch(stored, patch);
        RG_FUZZ_CHECK(merge_patch(patched, patch) == patched,
                      "a merge patch applied twice differs: " + rg::fuzz::check_reparses(patched));
        break;
      case 1:
        patched = json_patch(stored, patch);
        break;
      default:
        patched = strategic_merge_patch(stored, patch, rg::fuzz::patch_kind(data[0] / 3).kind);
        break;
    }
    const std::string text = rg::fuzz::check_reparses(patched);
    RG_FUZZ_CHECK(nesting_depth(patched) <= kMaxNestingDepth,
                  "a patch stored an object deeper than kube-sim reads: " + text);
  } catch (const ApiError&) {
  }
  return 0;
}
