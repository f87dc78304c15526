// Deep equality of JSON values without copies (see json_equal.hpp).
#include "sim/json_equal.hpp"

#include <boost/json.hpp>

#include <cstdint>

namespace rg::sim {

namespace json = boost::json;

namespace {

// An int64 and a uint64 are equal when they hold the same non-negative value.
bool same_integer(std::int64_t signed_value, std::uint64_t unsigned_value) {
  return signed_value >= 0 && static_cast<std::uint64_t>(signed_value) == unsigned_value;
}

}  // namespace

bool json_equal(const json::object& a, const json::object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& member : a) {
    const auto* other = b.if_contains(member.key());
    if (other == nullptr || !json_equal(member.value(), *other)) return false;
  }
  return true;
}

bool json_equal(const json::array& a, const json::array& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!json_equal(a[i], b[i])) return false;
  return true;
}

bool json_equal(const json::value& a, const json::value& b) {
  switch (a.kind()) {
    case json::kind::null:
      return b.is_null();
    case json::kind::bool_:
      return b.is_bool() && a.get_bool() == b.get_bool();
    case json::kind::int64:
      if (b.is_int64()) return a.get_int64() == b.get_int64();
      return b.is_uint64() && same_integer(a.get_int64(), b.get_uint64());
    case json::kind::uint64:
      if (b.is_uint64()) return a.get_uint64() == b.get_uint64();
      return b.is_int64() && same_integer(b.get_int64(), a.get_uint64());
    case json::kind::double_:
      return b.is_double() && a.get_double() == b.get_double();
    case json::kind::string:
      return b.is_string() && a.get_string() == b.get_string();
    case json::kind::array:
      return b.is_array() && json_equal(a.get_array(), b.get_array());
    case json::kind::object:
      return b.is_object() && json_equal(a.get_object(), b.get_object());
  }
  return false;
}

}  // namespace rg::sim
