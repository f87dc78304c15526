// UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF): JSON text
// must be UTF-8, so bytes from elsewhere (protobuf strings, YAML) are checked before they can end
// up in a JSON document.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace rg::client {

/// Length of the valid UTF-8 sequence at the start of `s` (not empty), or 0 if it is not one.
std::size_t utf8_sequence(std::string_view s);

/// The offset of the first byte of `s` that is not valid UTF-8; nullopt when all of it is.
std::optional<std::size_t> first_invalid_utf8(std::string_view s);

}  // namespace rg::client
