// Warning response headers (RFC 7234 section 5.5, as the API server writes them for deprecated
// APIs and unknown fields: `299 - "unknown field \"spec.foo\""`), reduced to their texts so the
// RequestObserver can log them as client-go's default WarningHandler does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rg::client {

/// The texts of the 299 ("miscellaneous persistent warning") warnings in one Warning header
/// value, which may hold several, comma-separated. Other codes and malformed parts are skipped.
std::vector<std::string> parse_warnings(std::string_view header);

}  // namespace rg::client
