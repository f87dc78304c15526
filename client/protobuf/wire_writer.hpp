// WireWriter: builds one protobuf message (the wire format: varint tags, varints and
// length-delimited fields) field by field -- the writing side of WireReader, for documents kube-sim
// serves as protobuf (the OpenAPI v2 document).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rg::client::protobuf {

class WireWriter {
 public:
  /// A varint field (int32, int64, uint64, enum); written even when zero.
  WireWriter& varint(std::uint32_t number, std::uint64_t value);
  /// A bool field; proto3 leaves false out, and so does this.
  WireWriter& boolean(std::uint32_t number, bool value);
  /// A string or bytes field; proto3 leaves an empty one out, and so does this.
  WireWriter& string(std::uint32_t number, std::string_view value);
  /// An embedded message field, written even when the message is empty (it is then present).
  WireWriter& message(std::uint32_t number, const WireWriter& message);

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

  /// Appends `value` as a base-128 varint.
  static void append_varint(std::string& out, std::uint64_t value);

 private:
  void tag(std::uint32_t number, std::uint32_t wire_type);
  void length_delimited(std::uint32_t number, std::string_view payload);

  std::string out_;
};

}  // namespace rg::client::protobuf
