// Base64url without padding (Go's base64.RawURLEncoding): continue tokens (apiserver
// pkg/storage/continue.go) and JWT segments of ServiceAccount tokens. Built on the client's
// standard base64 (client/config/base64.hpp), the one base64 codec of the project.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rg::sim {

std::string base64url_encode(std::string_view data);
/// nullopt for characters outside the URL alphabet, padding, or an impossible length.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace rg::sim
