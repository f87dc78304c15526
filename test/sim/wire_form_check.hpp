// Checks that what kube-sim serves is in the wire form encoding/json writes (sim/wire_form.hpp):
// the test clients run every JSON reply and watch event through check_served().
#pragma once

#include <doctest/doctest.h>
#include <boost/json.hpp>

#include <string>
#include <string_view>

#include "sim/wire_form.hpp"

namespace rg::sim::test {

inline void check_object(const boost::json::object& object, std::string_view api_version = {},
                         std::string_view kind = {}) {
  for (const auto& violation : wire_form_violations(object, api_version, kind))
    FAIL_CHECK("served object not in the wire form: " << violation << "\n  object: "
                                                      << boost::json::serialize(object));
}

/// Checks a response body or a watch line: an object, a list (its items), or a watch event (its
/// object). Anything else (non-JSON, Tables, Status, kinds without a Go type) passes.
inline void check_served(std::string_view body) {
  if (body.empty() || body.front() != '{') return;
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec || !value.is_object()) return;
  const auto& object = value.get_object();
  if (const auto* event = object.if_contains("object");
      event != nullptr && event->is_object() && object.contains("type")) {
    check_object(event->get_object());
    return;
  }
  const auto* items = object.if_contains("items");
  const auto* kind = object.if_contains("kind");
  const auto* api_version = object.if_contains("apiVersion");
  if (items != nullptr && items->is_array() && kind != nullptr && kind->is_string() &&
      api_version != nullptr && api_version->is_string()) {
    std::string_view list_kind = kind->get_string();
    if (!list_kind.ends_with("List")) return;
    list_kind.remove_suffix(4);
    for (const auto& item : items->get_array())
      if (item.is_object()) check_object(item.get_object(), api_version->get_string(), list_kind);
    return;
  }
  check_object(object);
}

}  // namespace rg::sim::test
