// ObjectCodec: how the list and watch decoders create and decode objects of a type chosen by the
// caller (a typed projection or Unstructured), without being templates themselves.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>

#include "client/model/schema_fwd.hpp"
#include "client/model/struct_sink.hpp"
#include "client/model/unstructured.hpp"
#include "client/model/value_sink.hpp"

namespace rg::client::detail {

struct ObjectCodec {
  std::shared_ptr<void> (*create)();          ///< a new default object
  std::unique_ptr<ValueSink> (*make_sink)();  ///< a sink decoding into such objects
  /// Unstructured only (null for typed projections, which do not keep apiVersion and kind):
  /// gives a list item with neither apiVersion nor kind the list's apiVersion and its kind
  /// without the "List" suffix, as apimachinery's unstructured list decoding does (API servers
  /// leave them out of the items of built-in lists).
  void (*fill_type_meta)(void* object, std::string_view api_version,
                         std::string_view list_kind) = nullptr;
};

/// Objects the list and watch decoders can produce: typed projections and Unstructured.
template <class T>
concept DecodableObject = HasSchema<T> || std::is_same_v<T, Unstructured>;

/// The codec for T. Objects must carry `metadata` (as Kubernetes list items and watch objects do).
template <DecodableObject T>
ObjectCodec codec_for() {
  ObjectCodec codec{};
  codec.create = []() -> std::shared_ptr<void> { return std::make_shared<T>(); };
  if constexpr (std::is_same_v<T, Unstructured>) {
    codec.make_sink = [] { return make_unstructured_sink(true); };
    codec.fill_type_meta = [](void* object, std::string_view api_version,
                              std::string_view list_kind) {
      static_cast<Unstructured*>(object)->set_type_meta_if_missing(api_version, list_kind);
    };
  } else {
    codec.make_sink = [] { return make_struct_sink(schema_of(Tag<T>{})); };
  }
  return codec;
}

}  // namespace rg::client::detail
