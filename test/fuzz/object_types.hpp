// What the list and watch harnesses share: the object types they decode into, chosen by one
// input byte (every typed projection the operator reads, and Unstructured), each type's
// round-trip property, and the whole-versus-chunked comparison.
#pragma once

#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/model/codec.hpp"
#include "client/model/deployment.hpp"
#include "client/model/event.hpp"
#include "client/model/horizontal_pod_autoscaler.hpp"
#include "client/model/lease.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "client/model/replica_set.hpp"
#include "client/model/scale.hpp"
#include "client/model/unstructured.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace rg::fuzz {

/// Calls `f.template operator()<T>()` for the type `selector` picks.
template <class F>
void with_object_type(std::uint8_t selector, F&& f) {
  using namespace rg::client;
  switch (selector % 9) {
    case 0:
      return f.template operator()<Pod>();
    case 1:
      return f.template operator()<Node>();
    case 2:
      return f.template operator()<Deployment>();
    case 3:
      return f.template operator()<ReplicaSet>();
    case 4:
      return f.template operator()<Event>();
    case 5:
      return f.template operator()<Lease>();
    case 6:
      return f.template operator()<Scale>();
    case 7:
      return f.template operator()<HorizontalPodAutoscaler>();
    default:
      return f.template operator()<Unstructured>();
  }
}

/// The object as JSON text: what a typed projection keeps, or the whole Unstructured object.
template <class T>
std::string encoded(const T& object) {
  if constexpr (std::is_same_v<T, client::Unstructured>) {
    return object.serialize();
  } else {
    return check_reparses(client::to_json(object));
  }
}

/// decode -> encode -> decode is stable: the encoded object decodes to one that encodes the same.
template <class T>
void check_round_trip(const T& object) {
  std::string first = encoded(object);
  std::string second;
  if constexpr (std::is_same_v<T, client::Unstructured>) {
    second = encoded(client::Unstructured::parse(first));
  } else {
    second = encoded(client::decode<T>(first));
  }
  RG_FUZZ_CHECK(first == second || same_json(boost::json::parse(first), boost::json::parse(second)),
                "round trip changed the object:\n" + first + "\n" + second);
}

/// What decoding a body gave: the objects (as text), in order, and whether it failed after them.
struct DecodeOutcome {
  std::vector<std::string> decoded;
  bool failed = false;
  bool operator==(const DecodeOutcome&) const = default;
};

inline std::string describe(const DecodeOutcome& outcome) {
  std::string text = outcome.failed ? "failed after" : "decoded";
  for (const auto& item : outcome.decoded) text += "\n  " + item;
  return text;
}

/// The decoder harnesses' entry: the first byte picks T (low bits) and a chunk size (high bits),
/// the rest is the body. `decode.template operator()<T>(body, chunk, check)` returns a
/// DecodeOutcome (checking round trips when `check`); fed whole and in chunks, it must be the same.
template <class Decode>
void compare_whole_and_chunked(const std::uint8_t* data, std::size_t size, Decode&& decode) {
  if (size == 0) return;
  std::string_view body = as_text(data + 1, size - 1);
  std::size_t chunk = 1 + (data[0] >> 4);
  with_object_type(data[0] & 0x0f, [&]<class T>() {
    DecodeOutcome whole = decode.template operator()<T>(body, body.size() + 1, true);
    DecodeOutcome chunked = decode.template operator()<T>(body, chunk, false);
    RG_FUZZ_CHECK(whole == chunked, "chunked decoding differs from whole decoding:\n" +
                                        describe(whole) + "\n" + describe(chunked));
  });
}

}  // namespace rg::fuzz
