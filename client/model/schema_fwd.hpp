// Forward declarations for the projection schemas (client/model/schema.hpp), light enough for
// every projection header: each kind declares `schema_of(Tag<Kind>)` here-style and defines it in
// its .cpp file.
#pragma once

namespace rg::client::detail {

struct StructDesc;

/// Selects a schema_of overload by type.
template <class T>
struct Tag {};

/// A type with a schema: a typed projection the streaming decoder and the encoder handle.
template <class T>
concept HasSchema = requires {
  schema_of(Tag<T>{});
};

}  // namespace rg::client::detail
