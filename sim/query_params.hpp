// Query parameters as the API server decodes them -- one decoder per rule, used by every
// handler (sim/wire_facts.md, "Query parameters"):
// - booleans of the options types (ListOptions watch, allowWatchBookmarks, sendInitialEvents;
//   DeleteOptions orphanDependents; PatchOptions force) go through the codec's
//   Convert_Slice_string_To_bool: absent, "0" and "false" in any case are false, anything else
//   (the empty string too) is true;
// - dryRun is a list whose every value must be "All".
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "sim/http_types.hpp"

namespace rg::sim {

/// A `bool` option: Convert_Slice_string_To_bool of the parameter's values (the first decides).
bool codec_bool(const HttpRequest& request, std::string_view name);
/// A `*bool` option (Convert_Slice_string_To_Pointer_bool): nullopt when absent.
std::optional<bool> codec_optional_bool(const HttpRequest& request, std::string_view name);
/// `?dryRun=`: false when absent, true when every value is "All"; any other value (the empty
/// string too) is 422 Invalid for `options_kind` ("CreateOptions", "DeleteOptions", ...), as
/// ValidateDryRun answers.
bool dry_run_param(const HttpRequest& request, std::string_view options_kind);
/// The same rule for a list given otherwise (a DeleteOptions body's `dryRun`).
bool dry_run_values(const std::vector<std::string_view>& values, std::string_view options_kind);

}  // namespace rg::sim
