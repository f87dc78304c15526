// WireWriter: the bytes it writes, checked by hand-worked encodings and read back by WireReader.
#include <doctest/doctest.h>

#include <string>

#include "client/protobuf/wire_reader.hpp"
#include "client/protobuf/wire_writer.hpp"

using rg::client::protobuf::WireField;
using rg::client::protobuf::WireReader;
using rg::client::protobuf::WireType;
using rg::client::protobuf::WireWriter;

TEST_CASE("WireWriter: varints, tags and length-delimited fields byte for byte") {
  WireWriter w;
  w.varint(1, 150).string(2, "testing").boolean(3, true);
  // The protobuf encoding guide's examples: field 1 = 150 is 08 96 01; field 2 "testing".
  CHECK(w.bytes() == std::string("\x08\x96\x01\x12\x07testing\x18\x01", 14));
}

TEST_CASE("WireWriter: proto3 defaults are left out, empty messages are not") {
  WireWriter empty;
  WireWriter w;
  w.boolean(1, false).string(2, "").message(3, empty).varint(4, 0);
  CHECK(w.bytes() == std::string("\x1a\x00\x20\x00", 4));
}

TEST_CASE("WireWriter: large numbers, large fields and nesting read back through WireReader") {
  WireWriter inner;
  inner.string(1, std::string(300, 'x'));
  WireWriter outer;
  outer.varint(536870911, ~std::uint64_t{0}).message(16, inner);
  WireReader reader(outer.bytes());
  WireField field;
  REQUIRE(reader.next(field));
  CHECK(field.number == 536870911);
  CHECK(field.type == WireType::kVarint);
  CHECK(field.value == ~std::uint64_t{0});
  REQUIRE(reader.next(field));
  CHECK(field.number == 16);
  CHECK(field.type == WireType::kLength);
  WireReader nested(field.bytes);
  WireField text;
  REQUIRE(nested.next(text));
  CHECK(text.bytes == std::string(300, 'x'));
  CHECK_FALSE(nested.next(text));
  CHECK_FALSE(reader.next(field));
}
