// The LIST decoder: items decoded incrementally whatever the chunking, the list metadata, and
// bad bodies as clear errors naming the item and field.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "client/model/codec.hpp"
#include "client/model/pod.hpp"
#include "client/model/time.hpp"
#include "client/watch/list_decoder.hpp"

namespace rg::client {
namespace {

const std::string kPodList =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"222","continue":"eyJ2Ijoi",)"
    R"("remainingItemCount":1500},"items":[)"
    R"({"metadata":{"name":"a","namespace":"ns","uid":"u-a","labels":{"app":"web"},"managedFields":[{"f":{}}]},)"
    R"("spec":{"nodeName":"n1","volumes":[{"name":"v","projected":{"sources":[]}}]},"status":{"phase":"Running"}},)"
    R"({"metadata":{"name":"b\u00e9","namespace":"ns","uid":"u-b"},"spec":{},"status":{"phase":"Pending"}},)"
    R"({"metadata":{"name":"c","namespace":"ns","uid":"u-c","deletionTimestamp":"2026-01-01T00:00:00Z"}}]})";

std::vector<std::string> names(const std::vector<std::shared_ptr<const Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& pod : pods) out.push_back(boost::json::serialize(to_json(*pod)));
  return out;
}

struct Decoded {
  std::vector<std::string> items;
  ListMeta metadata;
};

Decoded decode_chunks(const std::vector<std::string_view>& chunks) {
  ListDecoder<Pod> decoder;
  std::vector<std::shared_ptr<const Pod>> pods;
  for (const auto chunk : chunks) decoder.feed(chunk, pods);
  return {names(pods), decoder.finish()};
}

std::string list_error(const std::vector<std::string_view>& chunks) {
  ListDecoder<Pod> decoder;
  std::vector<std::shared_ptr<const Pod>> pods;
  try {
    for (const auto chunk : chunks) decoder.feed(chunk, pods);
    decoder.finish();
  } catch (const DecodeError& error) {
    return error.what();
  }
  FAIL("no DecodeError");
  return {};
}

TEST_CASE("a list decodes into items and list metadata") {
  const auto list = decode_list<Pod>(kPodList);
  CHECK(list.metadata.resource_version == "222");
  CHECK(list.metadata.continue_ == "eyJ2Ijoi");
  CHECK(list.metadata.remaining_item_count == 1500);
  REQUIRE(list.items.size() == 3);
  CHECK(list.items[0]->metadata.name == "a");
  CHECK(list.items[0]->metadata.labels.at("app") == "web");
  CHECK(list.items[0]->spec.node_name == "n1");
  CHECK(list.items[1]->metadata.name == "b\xc3\xa9");
  CHECK(list.items[1]->status.phase == "Pending");
  CHECK(list.items[2]->metadata.deletion_timestamp == parse_rfc3339("2026-01-01T00:00:00Z"));
}

TEST_CASE("items are handed over as soon as each one is complete") {
  ListDecoder<Pod> decoder;
  std::vector<std::shared_ptr<const Pod>> pods;
  const std::string_view text = kPodList;
  const auto second = text.find(R"({"metadata":{"name":"b)");
  decoder.feed(text.substr(0, second), pods);
  CHECK(pods.size() == 1);
  CHECK(decoder.items() == 1);
  CHECK(decoder.metadata().resource_version == "222");
  decoder.feed(text.substr(second), pods);
  CHECK(pods.size() == 3);
  CHECK(decoder.finish().continue_ == "eyJ2Ijoi");
}

TEST_CASE("items can go to a callback instead of a vector") {
  ListDecoder<Pod> decoder;
  std::vector<std::string> seen;
  const std::string_view text = kPodList;
  const auto on_item = [&seen](std::shared_ptr<const Pod> pod) {
    seen.push_back(pod->metadata.name);
  };
  decoder.feed(text.substr(0, 300), on_item);
  decoder.feed(text.substr(300), on_item);
  CHECK(decoder.finish().resource_version == "222");
  CHECK(seen == std::vector<std::string>{"a", "b\xc3\xa9", "c"});
}

TEST_CASE("every split point and several multi-split patterns give identical lists") {
  const auto whole = decode_chunks({kPodList});
  REQUIRE(whole.items.size() == 3);
  const std::string_view text = kPodList;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    CAPTURE(i);
    const auto split = decode_chunks({text.substr(0, i), text.substr(i)});
    REQUIRE(split.items == whole.items);
    REQUIRE(split.metadata.resource_version == "222");
  }
  for (const std::size_t size : {1, 3, 17}) {
    std::vector<std::string_view> chunks;
    for (std::size_t i = 0; i < text.size(); i += size) chunks.push_back(text.substr(i, size));
    CHECK(decode_chunks(chunks).items == whole.items);
  }
}

TEST_CASE("metadata may follow the items; empty and null items are empty lists") {
  const auto after = decode_list<Pod>(
      R"({"items":[{"metadata":{"name":"x"}}],"metadata":{"resourceVersion":"9"},"kind":"PodList"})");
  CHECK(after.items.size() == 1);
  CHECK(after.metadata.resource_version == "9");
  CHECK(decode_list<Pod>(R"({"metadata":{"resourceVersion":"1"},"items":[]})").items.empty());
  CHECK(decode_list<Pod>(R"({"metadata":{"resourceVersion":"1"},"items":null})").items.empty());
  CHECK_FALSE(decode_list<Pod>(R"({"metadata":{}}  )").metadata.remaining_item_count.has_value());
}

TEST_CASE("unstructured items keep every field") {
  const auto list = decode_list<Unstructured>(kPodList);
  REQUIRE(list.items.size() == 3);
  CHECK(list.items[0]->name() == "a");
  CHECK(list.items[0]->object().at("spec").at("volumes").as_array().size() == 1);
  CHECK(list.metadata.remaining_item_count == 1500);
}

TEST_CASE("unstructured items with neither apiVersion nor kind get the list's, as in client-go") {
  const auto list = decode_list<Unstructured>(kPodList);
  REQUIRE(list.items.size() == 3);
  CHECK(list.items[2]->api_version() == "v1");
  CHECK(list.items[2]->kind() == "Pod");
  const auto own = decode_list<Unstructured>(
      R"({"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{},"items":[)"
      R"({"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"a"}},)"
      R"({"kind":"","metadata":{"name":"b"}},{"apiVersion":"example.com/v3","metadata":{"name":"c"}}]})");
  REQUIRE(own.items.size() == 3);
  CHECK(own.items[2]->api_version() == "example.com/v3");  // one of the two set: left alone
  CHECK(own.items[2]->kind().empty());
  CHECK(own.items[0]->api_version() == "example.com/v2");  // an item's own are kept
  CHECK(own.items[1]->api_version() == "example.com/v1");
  CHECK(own.items[1]->kind() == "Widget");
  // A list object whose kind is not a string: nothing is filled in.
  CHECK(decode_list<Unstructured>(R"({"kind":3,"items":[{"metadata":{"name":"x"}}]})")
            .items[0]
            ->kind()
            .empty());
}

TEST_CASE("bad list bodies are errors naming the item and field") {
  CHECK(list_error({R"({"items":[{"metadata":{}},{"metadata":{"name":5}}]})"}) ==
        "decoding a list: items[1].metadata.name: expected string, got number");
  CHECK(list_error({R"({"items":[{"metadata":{}},{"spec":{}}]})"}) ==
        "decoding a list: items[1]: missing required field \"metadata\" (Pod without it)");
  CHECK(list_error({R"({"items":[{"metadata":{}},7]})"}) ==
        "decoding a list: items[1]: expected object, got number");
  CHECK(list_error({R"({"items":{}})"}) == "decoding a list: items: expected array, got object");
  CHECK(list_error({R"({"metadata":{"continue":1},"items":[]})"}) ==
        "decoding a list: metadata.continue: expected string, got number");
  CHECK(list_error({R"([])"}) == "decoding a list: expected a list object, got array");
  CHECK(list_error({R"({"items":[{"metadata":{}})"}) ==
        "decoding a list: the body ended inside the list, after 25 bytes (truncated)");
  CHECK(list_error({""}) == "decoding a list: the body is empty");
  const std::string after =
      "decoding a list: unexpected data after the list object (a LIST body is one JSON object; "
      "only whitespace may follow it)";
  CHECK(list_error({R"({"items":[]} {})"}) == after);
  CHECK(list_error({R"({"items":[]})", " x"}) == after);
  CHECK_NOTHROW(decode_list<Pod>(" {\"items\":[]} \r\n\t"));
  CHECK(list_error({R"({"items":[})"}).find("invalid JSON") != std::string::npos);
}

// Found by the list_decoder fuzzer: fed whole, the decoder read what followed the list as a
// second list and handed over its items before failing; fed in pieces, it failed before them.
TEST_CASE("what follows a list is never read as items, whatever the chunking") {
  const std::string body =
      R"({} {"kind":"PodList","items":[{"metadata":{"name":"stray","namespace":"ns"}}]})";
  for (const std::size_t piece : {body.size(), std::size_t{1}, std::size_t{6}}) {
    CAPTURE(piece);
    ListDecoder<Pod> decoder;
    std::vector<std::shared_ptr<const Pod>> pods;
    std::string error;
    try {
      for (std::size_t at = 0; at < body.size(); at += piece)
        decoder.feed(std::string_view(body).substr(at, piece), pods);
      decoder.finish();
    } catch (const DecodeError& e) {
      error = e.what();
    }
    CHECK(pods.empty());
    CHECK(decoder.items() == 0);
    CHECK(error.find("unexpected data after the list object") != std::string::npos);
  }
}

}  // namespace
}  // namespace rg::client
