// Test helpers: what a typed projection should keep of a JSON object, computed generically from
// the original JSON and the projection's schema, and which schema keys a JSON object lacks.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "client/model/schema.hpp"

namespace rg::client::test {

inline bool is_empty(const boost::json::value& value) {
  if (value.is_null()) return true;
  if (const auto* s = value.if_string()) return s->empty();
  if (const auto* a = value.if_array()) return a->empty();
  if (const auto* o = value.if_object()) return o->empty();
  return false;
}

/// The kept fields of `in` (a JSON object) in schema order, as the encoder writes them: nulls,
/// empty strings and empty collections left out, absent non-optional numbers and booleans zero.
inline boost::json::object project(const boost::json::object& in,
                                   const detail::StructDesc& schema) {
  using detail::FieldKind;
  boost::json::object out;
  if (!schema.api_version.empty()) out["apiVersion"] = schema.api_version;
  if (!schema.kind.empty()) out["kind"] = schema.kind;
  for (const auto& field : schema.fields) {
    const auto* value = in.if_contains(field.key);
    if (value == nullptr || value->is_null()) {
      // A non-optional number or boolean holds its zero value when absent, and is encoded.
      if (field.kind == FieldKind::kInt64 || field.kind == FieldKind::kInt32) out[field.key] = 0;
      if (field.kind == FieldKind::kBool) out[field.key] = false;
      continue;
    }
    if (is_empty(*value)) continue;
    switch (field.kind) {
      case FieldKind::kStruct:
      case FieldKind::kOptStruct: {
        auto nested = project(value->as_object(), field.child());
        if (field.kind == FieldKind::kOptStruct || !nested.empty())
          out[field.key] = std::move(nested);
        break;
      }
      case FieldKind::kStructList: {
        boost::json::array elements;
        for (const auto& element : value->as_array()) {
          elements.emplace_back(project(element.as_object(), field.child()));
        }
        out[field.key] = std::move(elements);
        break;
      }
      default:
        out[field.key] = *value;
    }
  }
  return out;
}

/// Paths of schema fields absent from `in` (fixtures populate every field, so a key the schema
/// spells wrong shows up here).
inline void missing_keys(const boost::json::object& in, const detail::StructDesc& schema,
                         const std::string& path, std::vector<std::string>& missing) {
  using detail::FieldKind;
  // A field set (managedFields[].fieldsV1) is keyed by the paths it holds, not by API fields:
  // the fixtures' are empty, and the projection's keys ("f:spec") are field-set syntax.
  if (schema.type_name == "FieldsV1") return;
  for (const auto& field : schema.fields) {
    const std::string where =
        path.empty() ? std::string(field.key) : path + "." + std::string(field.key);
    const auto* value = in.if_contains(field.key);
    if (value == nullptr) {
      missing.push_back(where);
      continue;
    }
    if (field.kind == FieldKind::kStruct || field.kind == FieldKind::kOptStruct) {
      if (value->is_object()) missing_keys(value->get_object(), field.child(), where, missing);
    } else if (field.kind == FieldKind::kStructList && value->is_array()) {
      for (const auto& element : value->get_array()) {
        if (element.is_object())
          missing_keys(element.get_object(), field.child(), where + "[]", missing);
      }
    }
  }
}

}  // namespace rg::client::test
