// Fuzzes the protobuf wire reader and decoder kube-sim uses for request bodies. The first byte
// picks a mode: a whole body (magic + runtime.Unknown envelope), or one message of a known kind.
// Properties: the reader never steps back or outside its input, bad bytes fail only with
// ProtobufError, and the decoded JSON is well formed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "client/protobuf/decoder.hpp"
#include "client/protobuf/wire_reader.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace {

using namespace rg::client::protobuf;

constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kKinds{{
    {"v1", "Pod"},
    {"v1", "Secret"},
    {"apps/v1", "Deployment"},
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
    {"autoscaling/v1", "HorizontalPodAutoscaler"},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview"},
    {"rbac.authorization.k8s.io/v1", "ClusterRole"},
    {"v1", "DeleteOptions"},
}};

/// Walks every field, and into length-delimited ones as if they were messages.
void walk(std::string_view data, std::size_t base, int depth) {
  WireReader reader(data, base);
  WireField field;
  std::size_t last = base;
  bool first = true;
  while (reader.next(field)) {
    RG_FUZZ_CHECK(first || field.offset > last, "the wire reader went backwards");
    RG_FUZZ_CHECK(field.offset >= base && field.offset < base + data.size(),
                  "a field starts outside the message");
    first = false;
    last = field.offset;
    if (field.type != WireType::kLength) continue;
    const char* begin = field.bytes.data();
    RG_FUZZ_CHECK(begin >= data.data() && begin + field.bytes.size() <= data.data() + data.size(),
                  "a length-delimited field reaches outside the message");
    if (depth < 8) {
      try {
        walk(field.bytes, base + static_cast<std::size_t>(begin - data.data()), depth + 1);
      } catch (const ProtobufError&) {
        // Not every bytes field is a message.
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view bytes = rg::fuzz::as_text(data + 1, size - 1);
  try {
    walk(bytes, 0, 0);
  } catch (const ProtobufError&) {
  }
  try {
    if (data[0] < 128) {
      rg::fuzz::check_reparses(decode_object(bytes));
    } else {
      auto [api_version, kind] = kKinds[data[0] % kKinds.size()];
      const MessageSpec* spec = find_schema(api_version, kind);
      RG_FUZZ_CHECK(spec != nullptr, "a kind the decoder documents has no schema");
      rg::fuzz::check_reparses(decode_message(bytes, *spec));
    }
  } catch (const ProtobufError&) {
  }
  return 0;
}
