// What every fuzz harness shares: the input as text, splitting it into parts, and property
// checks that abort with a message libFuzzer reports as a crash (with the input saved).
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/json_reader.hpp"

namespace rg::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Stops the run: a property did not hold. libFuzzer saves the input as a crash.
[[noreturn]] inline void property_failed(const char* property, std::string_view detail) {
  std::fprintf(stderr, "fuzz property failed: %s\n", property);
  std::fwrite(detail.data(), 1, detail.size(), stderr);  // may hold NUL bytes
  std::fputc('\n', stderr);
  std::abort();
}

#define RG_FUZZ_CHECK(condition, detail) \
  ((condition) ? (void)0 : ::rg::fuzz::property_failed(#condition, (detail)))

/// The parts of `text` between NUL bytes (at most `max_parts`; the last one keeps the rest).
inline std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    std::size_t nul = text.find('\0');
    if (nul == std::string_view::npos) break;
    parts.push_back(text.substr(0, nul));
    text.remove_prefix(nul + 1);
  }
  parts.push_back(text);
  return parts;
}

/// Equal JSON values, except that doubles need only agree to 1e-12 relative: Boost.JSON 1.81's
/// default parser is not exact to the last bit for every double it reads back.
inline bool same_json(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_double() && b.is_double()) {
    double x = a.get_double(), y = b.get_double();
    return x == y || std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    const auto &p = a.get_object(), &q = b.get_object();
    if (p.size() != q.size()) return false;
    for (auto i = p.begin(), j = q.begin(); i != p.end(); ++i, ++j) {
      if (i->key() != j->key() || !same_json(i->value(), j->value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    const auto &p = a.get_array(), &q = b.get_array();
    if (p.size() != q.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!same_json(p[i], q[i])) return false;
    }
    return true;
  }
  return a == b;
}

/// A value's JSON text parses back to the same value: nothing written is malformed or lossy.
inline std::string check_reparses(const boost::json::value& value) {
  std::string text = boost::json::serialize(value);
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = rg::client::detail::kMaxJsonDepth;  // as deep as the decoders read
  boost::json::value again = boost::json::parse(text, ec, {}, options);
  RG_FUZZ_CHECK(!ec, "serialized JSON does not parse (" + ec.message() + "): " + text);
  RG_FUZZ_CHECK(same_json(again, value), "serialized JSON parses to another value: " + text);
  return text;
}

}  // namespace rg::fuzz
