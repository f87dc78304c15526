// Standard base64 (RFC 4648, with padding): kubeconfig *-data fields, ExecCredential cluster
// info, basic auth, and protobuf `bytes` fields rendered as JSON strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rg::client {

std::string base64_encode(std::string_view data);

/// Decodes standard base64; whitespace (line breaks in pasted data) is ignored. Returns nullopt
/// for characters outside the alphabet, wrong padding or a length that is not a multiple of 4.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace rg::client
