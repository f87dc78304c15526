// A tiny protobuf encoder for the tests: builds messages field by field, the way gogo-protobuf
// writes Kubernetes objects, so decoder tests can state their input readably.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rg::test {

class Encoder {
 public:
  static std::string varint_bytes(std::uint64_t v) {
    std::string out;
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
    return out;
  }

  Encoder& varint(std::uint32_t field, std::uint64_t v) {
    out_ += varint_bytes(std::uint64_t{field} << 3 | 0);
    out_ += varint_bytes(v);
    return *this;
  }
  Encoder& bytes(std::uint32_t field, std::string_view b) {
    out_ += varint_bytes(std::uint64_t{field} << 3 | 2);
    out_ += varint_bytes(b.size());
    out_ += b;
    return *this;
  }
  Encoder& message(std::uint32_t field, const Encoder& m) { return bytes(field, m.str()); }
  Encoder& fixed64(std::uint32_t field, std::uint64_t v) {
    out_ += varint_bytes(std::uint64_t{field} << 3 | 1);
    for (int i = 0; i < 8; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Encoder& fixed32(std::uint32_t field, std::uint32_t v) {
    out_ += varint_bytes(std::uint64_t{field} << 3 | 5);
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  /// A map<string, string|bytes> entry.
  Encoder& entry(std::uint32_t field, std::string_view key, std::string_view value) {
    return message(field, Encoder().bytes(1, key).bytes(2, value));
  }

  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

/// "k8s\0" + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}.
inline std::string envelope(std::string_view api_version, std::string_view kind,
                            const Encoder& raw) {
  Encoder unknown;
  unknown.message(1, Encoder().bytes(1, api_version).bytes(2, kind))
      .bytes(2, raw.str())
      .bytes(3, "")
      .bytes(4, "");
  return std::string("k8s\0", 4) + unknown.str();
}

/// ObjectMeta as gogo writes it for a new object: every string present even when empty, a zero
/// creationTimestamp as an empty message.
inline Encoder new_object_meta(std::string_view name, std::string_view ns = "") {
  Encoder m;
  m.bytes(1, name).bytes(2, "").bytes(3, ns).bytes(4, "").bytes(5, "").bytes(6, "");
  m.varint(7, 0).bytes(8, "");
  return m;
}

}  // namespace rg::test
