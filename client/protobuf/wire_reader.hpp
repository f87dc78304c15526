// WireReader: walks the fields of one protobuf message (the wire format: varint tags, varints,
// fixed 32/64-bit values and length-delimited bytes) with bounds checks on every read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rg::client::protobuf {

enum class WireType : std::uint8_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

struct WireField {
  std::uint32_t number = 0;
  WireType type = WireType::kVarint;
  std::uint64_t value = 0;  ///< varint and fixed values
  std::string_view bytes;   ///< length-delimited payload (a view into the input)
  std::size_t offset = 0;   ///< where the field's tag starts, from the start of the body
};

class WireReader {
 public:
  /// `base` is the offset of `data` within the whole body, for error messages.
  explicit WireReader(std::string_view data, std::size_t base = 0) : data_(data), base_(base) {}

  /// Reads the next field; false at the end. Throws ProtobufError on a truncated or malformed
  /// field (never reads past `data`).
  bool next(WireField& field);

  /// Reads one varint from `data` at `pos` (advancing it); used for packed repeated fields.
  static std::uint64_t read_varint(std::string_view data, std::size_t& pos, std::size_t base);

 private:
  std::string_view data_;
  std::size_t base_;
  std::size_t pos_ = 0;
};

}  // namespace rg::client::protobuf
