// WatchDecoder<T>: decodes a watch response body (newline-delimited JSON events,
// `{"type":"ADDED","object":{...}}`) fed in arbitrary chunks, decoding each object straight into
// T while parsing; the body is never buffered whole.
//
//   WatchDecoder<Pod> decoder;
//   std::vector<WatchEvent<Pod>> events;
//   while (auto chunk = co_await read_some()) decoder.feed(chunk, events);   // then use events
//   decoder.finish();   // at end of stream: throws if it ended inside an event
//
// Bad input (invalid JSON, an unknown event type, an object without metadata, a wrong field
// type, an event over max_event_bytes, a truncated stream) throws DecodeError naming the event
// and field; the decoder is then failed for good (the stream must be dropped and re-watched).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/decode_error.hpp"
#include "client/model/object_codec.hpp"
#include "client/watch/watch_event.hpp"

namespace rg::client {

struct WatchDecoderOptions {
  /// The largest event accepted (default 16 MiB): a bound on memory for one event.
  std::size_t max_event_bytes = std::size_t{16} << 20;
};

namespace detail {

struct RawWatchEvent {
  WatchEventType type;
  std::shared_ptr<void> object;
  std::shared_ptr<const Status> status;
};

/// The type-erased decoder behind WatchDecoder<T>.
class WatchStreamDecoder {
 public:
  WatchStreamDecoder(ObjectCodec codec, WatchDecoderOptions options);
  ~WatchStreamDecoder();
  WatchStreamDecoder(const WatchStreamDecoder&) = delete;
  WatchStreamDecoder& operator=(const WatchStreamDecoder&) = delete;

  void feed(std::string_view chunk, std::vector<RawWatchEvent>& out);
  void finish();
  std::uint64_t events() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace detail

template <detail::DecodableObject T>
class WatchDecoder {
 public:
  explicit WatchDecoder(WatchDecoderOptions options = {})
      : core_(detail::codec_for<T>(), options) {}

  /// Decodes the events completed by `chunk`, appending them to `out`. Throws DecodeError;
  /// the events before the bad one are appended first, so what is decoded does not depend on
  /// how the body was split into chunks.
  void feed(std::string_view chunk, std::vector<WatchEvent<T>>& out) {
    try {
      core_.feed(chunk, raw_);
    } catch (const DecodeError&) {
      hand_over(out);
      throw;
    }
    hand_over(out);
  }

  /// Call at the end of the body: throws DecodeError if it ended inside an event.
  void finish() { core_.finish(); }

  /// Events decoded so far.
  std::uint64_t events() const noexcept { return core_.events(); }

 private:
  void hand_over(std::vector<WatchEvent<T>>& out) {
    for (auto& event : raw_) {
      out.push_back(WatchEvent<T>{event.type,
                                  std::static_pointer_cast<const T>(std::move(event.object)),
                                  std::move(event.status)});
    }
    raw_.clear();
  }

  detail::WatchStreamDecoder core_;
  std::vector<detail::RawWatchEvent> raw_;
};

}  // namespace rg::client
