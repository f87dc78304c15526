// ObjectCodec: how the list and watch decoders create and decode objects of a type chosen by the
// caller (a typed projection or Unstructured), without being templates themselves.
#pragma once

#include <memory>
#include <type_traits>

#include "client/model/schema_fwd.hpp"
#include "client/model/struct_sink.hpp"
#include "client/model/unstructured.hpp"
#include "client/model/value_sink.hpp"

namespace rg::client::detail {

struct ObjectCodec {
  std::shared_ptr<void> (*create)();          ///< a new default object
  std::unique_ptr<ValueSink> (*make_sink)();  ///< a sink decoding into such objects
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
  } else {
    codec.make_sink = [] { return make_struct_sink(schema_of(Tag<T>{})); };
  }
  return codec;
}

}  // namespace rg::client::detail
