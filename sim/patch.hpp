// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch
// (with the merge keys of the built-in types and the $patch/$setElementOrder/
// $deleteFromPrimitiveList/$retainKeys directives).
#pragma once

#include <boost/json/value.hpp>

#include <string_view>

namespace rg::sim {

enum class PatchType { kJson, kMerge, kStrategic, kApply };

/// The patch type of a Content-Type; throws 415 listing the accepted types.
PatchType patch_type_from(std::string_view content_type);

/// RFC 7386: objects merge recursively, null deletes, anything else replaces.
boost::json::value merge_patch(boost::json::value target, const boost::json::value& patch);

/// RFC 6902 (add, remove, replace, move, copy, test). Throws ApiError: 422 for a failed test or
/// a path that does not exist, 400 for a malformed patch.
boost::json::value json_patch(boost::json::value target, const boost::json::value& patch);

/// Strategic merge patch of an object of `kind` (e.g. "Deployment"): lists with a merge key
/// merge by that key, primitive lists of merge strategy union, other lists replace.
boost::json::value strategic_merge_patch(boost::json::value target, const boost::json::value& patch,
                                         std::string_view kind);

}  // namespace rg::sim
