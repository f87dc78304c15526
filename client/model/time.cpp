// Kubernetes wire timestamps (see time.hpp).
#include "client/model/time.hpp"

#include <cstdio>
#include <ctime>

namespace rg::client {
namespace {

constexpr WallTime::duration kLowest = WallTime::min().time_since_epoch();
constexpr WallTime::duration kHighest = WallTime::max().time_since_epoch();

std::optional<int> parse_digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int n = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    n = n * 10 + (text[i] - '0');
  }
  return n;
}

// "YYYY-MM-DDTHH:MM:SS" in UTC, with `micro` six digits of the second, then 'Z'.
std::string format(WallTime t, bool micro) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const auto seconds = static_cast<std::time_t>(micros / 1'000'000 - (micros % 1'000'000 < 0));
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  if (micro) {
    const long long fraction = (micros % 1'000'000 + 1'000'000) % 1'000'000;
    std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", fraction);
  } else {
    std::snprintf(buf + n, sizeof buf - n, "Z");
  }
  return buf;
}

}  // namespace

std::string format_time(WallTime t) { return format(t, false); }

std::string format_micro_time(WallTime t) { return format(t, true); }

std::optional<WallTime> parse_rfc3339(std::string_view t) {
  // 0123456789012345678
  // YYYY-MM-DDTHH:MM:SS
  auto year = parse_digits(t, 0, 4), month = parse_digits(t, 5, 2), day = parse_digits(t, 8, 2);
  auto hour = parse_digits(t, 11, 2), minute = parse_digits(t, 14, 2),
       second = parse_digits(t, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != 't') || t[13] != ':' || t[16] != ':' || *hour > 23 ||
      *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::chrono::year_month_day date{std::chrono::year(*year), std::chrono::month(*month),
                                   std::chrono::day(*day)};
  if (!date.ok()) return std::nullopt;
  std::size_t i = 19;
  std::chrono::nanoseconds fraction{0};
  if (i < t.size() && t[i] == '.') {
    std::int64_t scale = 100'000'000;
    ++i;
    std::size_t start = i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      fraction += std::chrono::nanoseconds((t[i] - '0') * scale);
      scale /= 10;
    }
    if (i == start) return std::nullopt;
  }
  std::chrono::minutes offset{0};
  if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
    ++i;
  } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    auto oh = parse_digits(t, i + 1, 2), om = parse_digits(t, i + 4, 2);
    if (!oh || !om || i + 3 >= t.size() || t[i + 3] != ':') return std::nullopt;
    offset = std::chrono::hours(*oh) + std::chrono::minutes(*om);
    if (t[i] == '-') offset = -offset;
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  const std::chrono::sys_seconds time = std::chrono::sys_days(date) + std::chrono::hours(*hour) +
                                        std::chrono::minutes(*minute) +
                                        std::chrono::seconds(*second) - offset;
  // WallTime counts nanoseconds in 64 bits, from 1677 to 2262: a time outside is clamped to
  // its ends (an expiry in the year 3000 stays "never", one in 1000 "long ago").
  if (time.time_since_epoch() < std::chrono::ceil<std::chrono::seconds>(kLowest)) {
    return WallTime::min();
  }
  if (time.time_since_epoch() >= std::chrono::floor<std::chrono::seconds>(kHighest)) {
    return WallTime::max();
  }
  return std::chrono::time_point_cast<WallTime::duration>(time + fraction);
}

}  // namespace rg::client
