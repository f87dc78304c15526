// ASCII text helpers the client's parsers share: trimming whitespace, comparing case-insensitively.
#pragma once

#include <string_view>

namespace rg::client {

/// `text` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string_view trim(std::string_view text);

/// ASCII case-insensitive comparison, as HTTP header names and API resource kinds are compared.
bool equals_ignore_case(std::string_view a, std::string_view b);

}  // namespace rg::client
