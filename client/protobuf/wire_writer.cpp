// WireWriter (see wire_writer.hpp).
#include "client/protobuf/wire_writer.hpp"

namespace rg::client::protobuf {

void WireWriter::append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void WireWriter::tag(std::uint32_t number, std::uint32_t wire_type) {
  append_varint(out_, (std::uint64_t{number} << 3) | wire_type);
}

void WireWriter::length_delimited(std::uint32_t number, std::string_view payload) {
  tag(number, 2);
  append_varint(out_, payload.size());
  out_ += payload;
}

WireWriter& WireWriter::varint(std::uint32_t number, std::uint64_t value) {
  tag(number, 0);
  append_varint(out_, value);
  return *this;
}

WireWriter& WireWriter::boolean(std::uint32_t number, bool value) {
  if (value) varint(number, 1);
  return *this;
}

WireWriter& WireWriter::string(std::uint32_t number, std::string_view value) {
  if (!value.empty()) length_delimited(number, value);
  return *this;
}

WireWriter& WireWriter::message(std::uint32_t number, const WireWriter& message) {
  length_delimited(number, message.out_);
  return *this;
}

}  // namespace rg::client::protobuf
