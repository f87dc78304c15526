// Parsing the values of replica-guard.io annotations and duration flags.
#include "operator/annotations.hpp"

#include <charconv>
#include <stdexcept>

namespace rg::op {

namespace {

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

IntOrPercent IntOrPercent::parse(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  const auto number = parse_int(percent ? text.substr(0, text.size() - 1) : text);
  if (!number || *number < 0 || *number > (percent ? 1000 : 1'000'000)) {
    throw std::invalid_argument(
        "\"" + std::string(text) +
        "\" is not a replica count or a percentage (expected e.g. 2 or 25%)");
  }
  return {static_cast<std::int32_t>(*number), percent};
}

std::int32_t IntOrPercent::resolve(std::int32_t total) const {
  if (!percent) return value;
  return static_cast<std::int32_t>((static_cast<std::int64_t>(total) * value + 99) / 100);
}

std::string IntOrPercent::to_string() const { return std::to_string(value) + (percent ? "%" : ""); }

std::optional<std::int32_t> parse_replicas(std::string_view text) {
  const auto number = parse_int(text);
  if (!number || *number < 0 || *number > 1'000'000) return std::nullopt;
  return static_cast<std::int32_t>(*number);
}

std::chrono::milliseconds parse_duration(std::string_view text) {
  const auto invalid = [&] {
    return std::invalid_argument("\"" + std::string(text) +
                                 "\" is not a duration (expected e.g. 30s, 1m30s, 500ms)");
  };
  if (text.empty()) throw invalid();
  if (text == "0") return std::chrono::milliseconds(0);
  double total_ms = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::size_t digits = 0;
    while (digits < rest.size() &&
           ((rest[digits] >= '0' && rest[digits] <= '9') || rest[digits] == '.')) {
      ++digits;
    }
    if (digits == 0) throw invalid();
    double number = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + digits, number);
    if (ec != std::errc() || ptr != rest.data() + digits) throw invalid();
    rest.remove_prefix(digits);
    std::size_t unit_len = 0;
    while (unit_len < rest.size() &&
           !((rest[unit_len] >= '0' && rest[unit_len] <= '9') || rest[unit_len] == '.')) {
      ++unit_len;
    }
    const std::string_view unit = rest.substr(0, unit_len);
    rest.remove_prefix(unit_len);
    if (unit == "ms") {
      total_ms += number;
    } else if (unit == "s") {
      total_ms += number * 1000;
    } else if (unit == "m") {
      total_ms += number * 60'000;
    } else if (unit == "h") {
      total_ms += number * 3'600'000;
    } else {
      throw invalid();
    }
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(total_ms));
}

}  // namespace rg::op
