// ValueSink: the receiving end of a JSON parse, one event per token, with keys and strings whole.
// The typed decoder (StructSink), the DOM builder (DomSink) and the list and watch envelopes are
// sinks; JsonReader drives one from Boost.JSON's incremental parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace boost::json {
class value;
}  // namespace boost::json

namespace rg::client::detail {

/// What went wrong, and where (a field path relative to the sink's value, empty at its root).
struct SinkError {
  std::string path;
  std::string message;
  /// "path: message", or just the message at the root.
  std::string describe(std::string_view prefix = {}) const;
};

/// Joins field path segments: "items[3]" + "metadata.name", "object" + "[2].x".
std::string join_path(std::string_view prefix, std::string_view path);

/// Receives the events of JSON values. Every event returns false on a decoding error, which
/// error() then describes; the sink is not used again until start().
///
/// A sink drops a value it does not keep by calling skip_next_value() (right after the key): the
/// driver (JsonReader's handler, replay, an envelope passing it on) then does not deliver that
/// value's events at all, so skipped subtrees cost the tokenizer and nothing else.
class ValueSink {
 public:
  ValueSink() = default;
  ValueSink(const ValueSink&) = delete;
  ValueSink& operator=(const ValueSink&) = delete;
  virtual ~ValueSink() = default;
  /// Installs the driver's skip flag; drivers call this before delivering events.
  void set_skip_flag(bool* skip_next) noexcept { skip_next_ = skip_next; }
  /// Drivers without a flag of their own (replay) use the sink's: reads and clears a request.
  void use_own_skip_flag() noexcept { skip_next_ = &own_skip_next_; }
  bool take_skip_request() noexcept { return std::exchange(*skip_next_, false); }
  /// Starts a new value, decoded into `target` (an object of the type the sink decodes).
  virtual void start(void* target) = 0;
  virtual bool object_begin() = 0;
  virtual bool object_end(std::size_t size) = 0;
  virtual bool array_begin() = 0;
  virtual bool array_end(std::size_t size) = 0;
  virtual bool key(std::string_view key) = 0;
  virtual bool string(std::string_view value) = 0;
  virtual bool int64(std::int64_t value) = 0;
  virtual bool uint64(std::uint64_t value) = 0;
  virtual bool float64(double value) = 0;
  virtual bool boolean(bool value) = 0;
  virtual bool null() = 0;
  virtual const SinkError& error() const = 0;

 protected:
  /// Asks the driver to drop the next value.
  void skip_next_value() noexcept { *skip_next_ = true; }
  bool* skip_flag() const noexcept { return skip_next_; }

 private:
  bool own_skip_next_ = false;
  bool* skip_next_ = &own_skip_next_;
};

/// Emits the events of an existing DOM value into `sink` (honouring its skip requests); false
/// when the sink rejects it.
bool replay(const boost::json::value& value, ValueSink& sink);

/// The JSON type name of an event, for messages: "string", "number", "object"...
enum class JsonType { kObject, kArray, kString, kNumber, kBoolean, kNull };
std::string_view name_of(JsonType type);

}  // namespace rg::client::detail
