// WireReader and ProtobufError.
#include "client/protobuf/wire_reader.hpp"

#include <fmt/format.h>

#include "client/protobuf/protobuf_error.hpp"

namespace rg::client::protobuf {

ProtobufError::ProtobufError(std::string problem, std::size_t offset, std::string path)
    : std::runtime_error(fmt::format("invalid protobuf body: {}{}{} (at byte {})", path,
                                     path.empty() ? "" : ": ", problem, offset)),
      problem_(std::move(problem)),
      offset_(offset),
      path_(std::move(path)) {}

ProtobufError ProtobufError::within(const std::string& field) const {
  std::string path = field;
  if (!path_.empty()) path += path_.starts_with('[') ? path_ : "." + path_;
  return ProtobufError(problem_, offset_, std::move(path));
}

std::uint64_t WireReader::read_varint(std::string_view data, std::size_t& pos, std::size_t base) {
  std::uint64_t value = 0;
  std::size_t start = pos;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= data.size()) throw ProtobufError("truncated varint", base + start);
    auto byte = static_cast<std::uint8_t>(data[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw ProtobufError("varint longer than 10 bytes", base + start);
}

bool WireReader::next(WireField& field) {
  if (pos_ >= data_.size()) return false;
  field.offset = base_ + pos_;
  std::uint64_t tag = read_varint(data_, pos_, base_);
  std::uint64_t number = tag >> 3;
  if (number == 0 || number > 0x1fffffff) {
    throw ProtobufError(fmt::format("invalid field number {}", number), field.offset);
  }
  field.number = static_cast<std::uint32_t>(number);
  auto need = [&](std::size_t n) {
    if (data_.size() - pos_ < n) {
      throw ProtobufError(fmt::format("field {} needs {} bytes but only {} are left", field.number,
                                      n, data_.size() - pos_),
                          field.offset);
    }
  };
  auto little_endian = [&](std::size_t n) {
    need(n);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += n;
    return v;
  };
  switch (tag & 7) {
    case 0:
      field.type = WireType::kVarint;
      field.value = read_varint(data_, pos_, base_);
      return true;
    case 1:
      field.type = WireType::kFixed64;
      field.value = little_endian(8);
      return true;
    case 2: {
      field.type = WireType::kLength;
      std::uint64_t length = read_varint(data_, pos_, base_);
      if (length > data_.size() - pos_) {
        throw ProtobufError(fmt::format("field {} has length {}, past the end of its message "
                                        "({} bytes left)",
                                        field.number, length, data_.size() - pos_),
                            field.offset);
      }
      field.bytes = data_.substr(pos_, static_cast<std::size_t>(length));
      pos_ += static_cast<std::size_t>(length);
      return true;
    }
    case 5:
      field.type = WireType::kFixed32;
      field.value = little_endian(4);
      return true;
    default:
      throw ProtobufError(
          fmt::format("field {} has unsupported wire type {}", field.number, tag & 7),
          field.offset);
  }
}

}  // namespace rg::client::protobuf
