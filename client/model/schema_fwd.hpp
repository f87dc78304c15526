// Forward declarations for the projection schemas (client/model/schema.hpp), light enough for
// every projection header: each kind declares `schema_of(Tag<Kind>)` here-style and defines it in
// its .cpp file. A custom resource is declared the same way, in its own namespace (found by
// argument-dependent lookup): see `client::Tag` below and examples/widget_controller/widget.hpp.
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

namespace rg::client {

/// The public names of the schema vocabulary, for typed custom resources declared outside the
/// library: `const client::StructDesc& schema_of(client::Tag<Widget>);` next to the struct, and
/// its definition with `client::field<&Widget::spec>("spec")` (client/model/schema.hpp).
using detail::StructDesc;
using detail::Tag;

}  // namespace rg::client
