// Kubernetes timestamps on the wire: metav1.Time (RFC 3339 in UTC to the second,
// "2026-11-29T14:00:00Z") and metav1.MicroTime (to the microsecond,
// "2026-11-29T14:00:00.123456Z"), formatted, and RFC 3339 parsed.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace rg::client {

using WallTime = std::chrono::system_clock::time_point;

/// metav1.Time: "2026-11-29T14:00:00Z" (the fraction is truncated).
std::string format_time(WallTime t);
/// metav1.MicroTime: "2026-11-29T14:00:00.123456Z".
std::string format_micro_time(WallTime t);
/// Parses an RFC 3339 timestamp ("2026-11-29T15:04:05Z", optional fraction, 'Z' or +hh:mm);
/// std::nullopt when the text is not one. Times before 1678 or after 2261, which WallTime cannot
/// hold, become WallTime::min() or WallTime::max().
std::optional<WallTime> parse_rfc3339(std::string_view text);

}  // namespace rg::client
