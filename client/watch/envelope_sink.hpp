// EnvelopeSink: the base of the list and watch decoders. It reads the envelope's own structure
// (`{"type":..,"object":..}`, `{"metadata":..,"items":[..]}`) and hands each inner value whole to
// another sink (route), so objects are decoded straight from the parser's events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "client/model/value_sink.hpp"

namespace rg::client::detail {

class EnvelopeSink : public ValueSink {
 public:
  bool object_begin() final;
  bool object_end(std::size_t size) final;
  bool array_begin() final;
  bool array_end(std::size_t size) final;
  bool key(std::string_view key) final;
  bool string(std::string_view value) final;
  bool int64(std::int64_t value) final;
  bool uint64(std::uint64_t value) final;
  bool float64(double value) final;
  bool boolean(bool value) final;
  bool null() final;
  const SinkError& error() const final { return error_; }

 protected:
  /// Sends the next value (all its events) to `sink`; `path` (a literal), followed by `[index]`
  /// when an index is given, prefixes its errors.
  void route(ValueSink& sink, std::string_view path, std::size_t index = kNoIndex);
  /// Drops the next value (an envelope key that is not read).
  void skip_value() { skip_next_value(); }

  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

  /// A value begins outside any route: return false (after fail()) to reject it, or true after
  /// either routing it or taking a container as the envelope's own.
  virtual bool own_value(JsonType type) = 0;
  /// An own container ends.
  virtual bool own_end(JsonType type) = 0;
  /// A key of an own object.
  virtual bool own_key(std::string_view key) = 0;
  /// The routed value completed.
  virtual bool routed_value_done() = 0;

  bool fail(std::string path, std::string message);
  /// Resets the routing state (call from start()).
  void reset_routing();

 private:
  bool begin_value(JsonType type);
  bool routed(bool ok);
  [[gnu::noinline, gnu::cold]] bool routed_failed();
  bool after_scalar(bool ok);
  bool after_end(bool ok);

  ValueSink* route_ = nullptr;
  std::string_view route_path_;
  std::size_t route_index_ = kNoIndex;
  std::size_t route_depth_ = 0;
  SinkError error_;
};

}  // namespace rg::client::detail
