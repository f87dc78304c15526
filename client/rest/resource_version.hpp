// metadata.resourceVersion of an object's JSON text, read without decoding the object: a writer
// whose next write is conditional on the last one's answer needs only that field of it, and a
// Deployment's answer is several KB (managedFields, template, status) to build a DOM of.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rg::client {

/// The string at metadata.resourceVersion of the JSON object `object_json`; std::nullopt when the
/// text is not a JSON object with one (or is not JSON). Stops reading once it has it (it comes
/// early in metadata, before managedFields, spec and status).
std::optional<std::string> find_resource_version(std::string_view object_json);

}  // namespace rg::client
