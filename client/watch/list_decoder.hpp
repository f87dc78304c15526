// ListDecoder<T>: decodes a LIST response body (`{"kind":"PodList","metadata":{...},
// "items":[...]}`) fed in arbitrary chunks, decoding each item straight into T while parsing and
// handing it over as soon as it is complete; the body is never buffered whole.
//
//   ListDecoder<Pod> decoder;
//   std::vector<std::shared_ptr<const Pod>> pods;
//   while (auto chunk = co_await read_some()) decoder.feed(chunk, pods);
//   const ListMeta& meta = decoder.finish();   // resourceVersion, continue token
//
// Bad input throws DecodeError naming the item and field (`items[3].metadata: ...`).
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "client/model/list_meta.hpp"
#include "client/model/object_codec.hpp"

namespace rg::client {

namespace detail {

/// The type-erased decoder behind ListDecoder<T>.
class ListStreamDecoder {
 public:
  explicit ListStreamDecoder(ObjectCodec codec);
  ~ListStreamDecoder();
  ListStreamDecoder(const ListStreamDecoder&) = delete;
  ListStreamDecoder& operator=(const ListStreamDecoder&) = delete;

  void feed(std::string_view chunk, const std::function<void(std::shared_ptr<void>)>& on_item);
  const ListMeta& finish();
  const ListMeta& metadata() const noexcept;
  std::size_t items() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace detail

template <detail::DecodableObject T>
class ListDecoder {
 public:
  ListDecoder() : core_(detail::codec_for<T>()) {}

  /// Decodes the items completed by `chunk`, appending them to `items`. Throws DecodeError.
  void feed(std::string_view chunk, std::vector<std::shared_ptr<const T>>& items) {
    feed(chunk, [&items](std::shared_ptr<const T> item) { items.push_back(std::move(item)); });
  }

  /// Decodes the items completed by `chunk`, calling `on_item(std::shared_ptr<const T>)` for
  /// each as soon as it is complete (e.g. to put it straight into a store).
  template <std::invocable<std::shared_ptr<const T>> OnItem>
  void feed(std::string_view chunk, OnItem&& on_item) {
    core_.feed(chunk, [&on_item](std::shared_ptr<void> item) {
      on_item(std::static_pointer_cast<const T>(std::move(item)));
    });
  }

  /// Call at the end of the body: throws DecodeError if the list is incomplete; returns its
  /// metadata.
  const ListMeta& finish() { return core_.finish(); }

  /// The list metadata read so far (complete after finish()).
  const ListMeta& metadata() const noexcept { return core_.metadata(); }
  std::size_t items() const noexcept { return core_.items(); }

 private:
  detail::ListStreamDecoder core_;
};

template <class T>
struct List {
  ListMeta metadata;
  std::vector<std::shared_ptr<const T>> items;
};

/// Decodes a whole LIST body at once.
template <detail::DecodableObject T>
List<T> decode_list(std::string_view body) {
  ListDecoder<T> decoder;
  List<T> list;
  decoder.feed(body, list.items);
  list.metadata = decoder.finish();
  return list;
}

}  // namespace rg::client
