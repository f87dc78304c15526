// Decoding and encoding typed projections: decode<Pod>(text) parses JSON text straight into a
// projection, decode_value<Pod>(value) reads a DOM value, to_json(pod) writes the kept fields
// back. Errors throw DecodeError naming the field path.
#pragma once

#include <boost/json/object.hpp>

#include <memory>
#include <string_view>

#include "client/model/decode_error.hpp"
#include "client/model/schema_fwd.hpp"
#include "client/model/value_sink.hpp"

namespace rg::client {

namespace detail {
/// Parses `json` (one document) into `target`, an object described by `schema`.
void decode_struct(const StructDesc& schema, void* target, std::string_view json);
void decode_struct(const StructDesc& schema, void* target, const boost::json::value& json);
/// The kept fields of `object`: empty strings, unset optionals and empty collections and
/// objects are left out; top-level kinds get apiVersion and kind.
boost::json::object encode_struct(const StructDesc& schema, const void* object);
}  // namespace detail

/// Decodes one object (e.g. a GET response body) into a typed projection.
template <detail::HasSchema T>
T decode(std::string_view json) {
  T object{};
  detail::decode_struct(schema_of(detail::Tag<T>{}), &object, json);
  return object;
}

/// Decodes a DOM value (e.g. an unstructured object) into a typed projection.
template <detail::HasSchema T>
T decode_value(const boost::json::value& json) {
  T object{};
  detail::decode_struct(schema_of(detail::Tag<T>{}), &object, json);
  return object;
}

/// The kept fields of a typed projection as JSON (Go's omitempty style, see encode_struct).
template <detail::HasSchema T>
boost::json::object to_json(const T& object) {
  return detail::encode_struct(schema_of(detail::Tag<T>{}), &object);
}

}  // namespace rg::client
