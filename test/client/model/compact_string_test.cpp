// Tests of CompactString: inline and heap storage, copies and moves, comparisons, and the
// decoding and encoding of CompactString and timestamp members through the schemas.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

#include "client/model/codec.hpp"
#include "client/model/compact_string.hpp"
#include "client/model/decode_error.hpp"
#include "client/model/pod.hpp"
#include "client/model/time.hpp"

namespace rg::client {
namespace {

const std::string kLong = "PodReadyToStartContainers";  // 25 characters: on the heap

TEST_CASE("a CompactString keeps up to 15 characters inline and longer text on the heap") {
  const CompactString empty;
  CHECK(empty.empty());
  CHECK(empty.is_inline());
  CHECK(empty == "");
  const CompactString fifteen("node-0123456789");
  CHECK(fifteen.size() == 15);
  CHECK(fifteen.is_inline());
  CHECK(fifteen == "node-0123456789");
  const CompactString sixteen("node-01234567890");
  CHECK_FALSE(sixteen.is_inline());
  CHECK(sixteen.view() == "node-01234567890");
  const CompactString with_nul(std::string_view("a\0b", 3));
  CHECK(with_nul.size() == 3);
  CHECK(with_nul.view() == std::string_view("a\0b", 3));
}

TEST_CASE("a wider BasicCompactString keeps all but one of its bytes as inline characters") {
  using Key = BasicCompactString<40>;
  static_assert(sizeof(Key) == 40);
  const Key inline_key(std::string(39, 'k'));
  CHECK(inline_key.is_inline());
  CHECK(inline_key.view() == std::string(39, 'k'));
  Key heap_key(std::string(40, 'h'));
  CHECK_FALSE(heap_key.is_inline());
  CHECK(heap_key == std::string(40, 'h'));
  heap_key = inline_key;
  CHECK(heap_key.is_inline());
  CHECK(heap_key == inline_key);
  CHECK(std::hash<Key>{}(heap_key) == std::hash<std::string_view>{}(std::string(39, 'k')));
}

TEST_CASE("CompactString copies, moves and assignments keep the text and own it") {
  for (const std::string& text : {std::string("Ready"), kLong}) {
    CompactString original(text);
    CompactString copy = original;
    CHECK(copy == text);
    CHECK(copy.data() != original.data());
    CompactString moved = std::move(original);
    CHECK(moved == text);
    CHECK(original.empty());  // NOLINT(bugprone-use-after-move): a moved-from string is empty
    copy = "short";
    CHECK(copy == "short");
    copy = kLong;
    CHECK(copy == kLong);
    copy = copy;  // NOLINT(misc-redundant-expression): self-assignment keeps the text
    CHECK(copy == kLong);
    copy.assign(copy.view().substr(3));  // from its own characters
    CHECK(copy == kLong.substr(3));
    moved = std::move(copy);
    CHECK(moved == kLong.substr(3));
    moved.clear();
    CHECK(moved.empty());
  }
}

TEST_CASE("CompactString compares, orders, hashes and prints like its text") {
  const CompactString a("alpha");
  const CompactString b(kLong);
  CHECK(a == std::string("alpha"));
  CHECK(std::string("alpha") == a);
  CHECK(std::string_view("alpha") == a);
  CHECK(a != b);
  CHECK(b < a);  // byte order: upper case first
  CHECK(b > "Pod");
  CHECK(a == CompactString("alpha"));
  std::unordered_set<CompactString> set{a, b, CompactString("alpha")};
  CHECK(set.size() == 2);
  std::ostringstream out;
  out << b;
  CHECK(out.str() == kLong);
  CHECK(std::string(b) == kLong);
  CHECK(b.str() == kLong);
}

TEST_CASE("CompactString concatenates into a std::string with any string") {
  const CompactString ns("default");
  const CompactString name(kLong);
  const std::string slash = "/";
  CHECK(ns + "/" + name == "default/" + kLong);
  CHECK(ns + slash + name == "default/" + kLong);
  CHECK(ns + std::string_view("/") + name == "default/" + kLong);
  CHECK(ns + name == "default" + kLong);
  CHECK("ns:" + ns == "ns:default");
  CHECK(slash + ns == "/default");
  std::string key = "prefix-";
  key += name;
  CHECK(key == "prefix-" + kLong);
}

TEST_CASE("ObjectMeta's strings read as string_views and convert to std::string on request") {
  ObjectMeta meta;
  meta.name = "web-7d9c8b6f5d-x2x4b";
  meta.namespace_ = std::string("default");
  meta.resource_version = std::string_view("12345");
  CHECK(meta.name == "web-7d9c8b6f5d-x2x4b");
  const std::string_view name = meta.name;
  CHECK(name.starts_with("web-"));
  const std::string copy(meta.name);
  CHECK(copy == meta.name);
  CHECK(meta.namespace_ + "/" + meta.name == "default/web-7d9c8b6f5d-x2x4b");
  CHECK(meta.resource_version == std::string("12345"));
}

TEST_CASE("CompactString and timestamp members decode and encode through the Pod schema") {
  const std::string json =
      R"({"metadata":{"name":"web-0","creationTimestamp":"2026-11-29T12:00:00Z",)"
      R"("deletionTimestamp":"2026-11-29T12:05:00+01:00"},"spec":{"nodeName":"a-node-name-longer-than-15"},)"
      R"("status":{"conditions":[{"type":"PodReadyToStartContainers","status":"True",)"
      R"("lastTransitionTime":"2026-11-29T12:00:01.5Z"}]}})";
  const auto pod = decode<Pod>(json);
  CHECK(pod.spec.node_name == "a-node-name-longer-than-15");
  CHECK(pod.metadata.creation_timestamp == parse_rfc3339("2026-11-29T12:00:00Z"));
  CHECK(pod.metadata.deletion_timestamp == parse_rfc3339("2026-11-29T11:05:00Z"));
  REQUIRE(pod.status.conditions.size() == 1);
  CHECK(pod.status.conditions[0].type == "PodReadyToStartContainers");
  const auto encoded = to_json(pod);
  const auto& metadata = encoded.at("metadata").as_object();
  // metav1.Time: UTC, to the second.
  CHECK(metadata.at("creationTimestamp") == "2026-11-29T12:00:00Z");
  CHECK(metadata.at("deletionTimestamp") == "2026-11-29T11:05:00Z");
  const auto& condition = encoded.at("status").at("conditions").at(0).as_object();
  CHECK(condition.at("type") == "PodReadyToStartContainers");
  CHECK(condition.at("lastTransitionTime") == "2026-11-29T12:00:01Z");
  CHECK(encoded.at("spec").at("nodeName") == "a-node-name-longer-than-15");
}

TEST_CASE("an empty or null timestamp is unset; a malformed one is an error naming the field") {
  const auto pod =
      decode<Pod>(R"({"metadata":{"name":"p","creationTimestamp":"","deletionTimestamp":null}})");
  CHECK(pod.metadata.creation_timestamp == WallTime{});
  CHECK_FALSE(pod.metadata.deletion_timestamp.has_value());
  CHECK_FALSE(to_json(pod).at("metadata").as_object().contains("creationTimestamp"));
  CHECK_THROWS_WITH_AS(decode<Pod>(R"({"metadata":{"name":"p","creationTimestamp":"yesterday"}})"),
                       "decoding Pod: metadata.creationTimestamp: expected an RFC 3339 timestamp "
                       "(\"2026-11-29T14:00:00Z\"), got \"yesterday\"",
                       DecodeError);
  CHECK_THROWS_WITH_AS(decode<Pod>(R"({"metadata":{"name":"p","creationTimestamp":5}})"),
                       "decoding Pod: metadata.creationTimestamp: expected RFC 3339 timestamp, "
                       "got number",
                       DecodeError);
}

}  // namespace
}  // namespace rg::client
