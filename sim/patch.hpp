// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch
// (with the merge keys of the built-in types and the $patch/$setElementOrder/
// $deleteFromPrimitiveList/$retainKeys directives).
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>

namespace rg::sim {

/// The API server's limits on a JSON patch: at most 10000 operations (413 beyond;
/// apiserver/pkg/endpoints/handlers/patch.go, maxJSONPatchOperations), and copy operations adding
/// at most 3 MiB in all (422 beyond; server.NewConfig's JSONPatchMaxCopyBytes, json-patch's
/// AccumulatedCopySizeLimit), so that a small patch cannot copy a tree into itself until the
/// server runs out of memory.
inline constexpr std::size_t kMaxJsonPatchOperations = 10000;
inline constexpr std::size_t kJsonPatchMaxCopyBytes = std::size_t{3} * 1024 * 1024;

enum class PatchType { kJson, kMerge, kStrategic, kApply };

/// The patch type of a Content-Type; throws 415 listing the accepted types.
PatchType patch_type_from(std::string_view content_type);

/// RFC 7386: objects merge recursively, null deletes, anything else replaces.
boost::json::value merge_patch(boost::json::value target, const boost::json::value& patch);

/// RFC 6902 (add, remove, replace, move, copy, test). Throws ApiError: 422 for a failed test, a
/// path that does not exist, copies beyond kJsonPatchMaxCopyBytes or a result nested deeper than
/// kMaxNestingDepth; 413 for more than kMaxJsonPatchOperations operations; 400 for a malformed
/// patch.
boost::json::value json_patch(boost::json::value target, const boost::json::value& patch);

/// Strategic merge patch of an object of `kind` (e.g. "Deployment"): lists with a merge key
/// merge by that key, primitive lists of merge strategy union, other lists replace.
boost::json::value strategic_merge_patch(boost::json::value target, const boost::json::value& patch,
                                         std::string_view kind);

}  // namespace rg::sim
