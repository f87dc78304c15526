// The watch stream decoder: identical events whatever the chunking, every event type, object
// before type, Unstructured objects, and each kind of bad input as a clear stream error.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <random>
#include <string>
#include <vector>

#include "client/model/codec.hpp"
#include "client/model/pod.hpp"
#include "client/watch/watch_decoder.hpp"

namespace rg::client {
namespace {

const std::string kStream =
    R"({"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns",)"
    R"("resourceVersion":"1","labels":{"app":"w\u00e9b","k\"q":"v\\w"}},"spec":{"nodeName":"n1"},)"
    R"("status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}})"
    "\n"
    R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b","namespace":"ns",)"
    R"("resourceVersion":"2","generation":12345678901,"managedFields":[{"manager":"kubelet","fieldsV1":)"
    R"({"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{}}}}}}]},)"
    R"("spec":{"nodeName":"n2","priority":-1.5e3,"x":[true,false,null]},"status":{"containerStatuses":)"
    R"([{"name":"app","ready":false,"restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}})"
    "\r\n"
    R"({"object":{"metadata":{"name":"c","namespace":"ns","resourceVersion":"3"},"spec":{"nodeName":"n3"}},"type":"DELETED"})"
    "\n"
    R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"4",)"
    R"("annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}})"
    "\n"
    R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"json("message":"too old resource version: 123 (456)","reason":"Expired","code":410}})json"
    "\n";

// A comparable rendering of decoded events.
template <class T>
std::vector<std::string> render(const std::vector<WatchEvent<T>>& events) {
  std::vector<std::string> out;
  for (const auto& event : events) {
    std::string line(to_string(event.type));
    if (event.object) {
      if constexpr (std::is_same_v<T, Unstructured>) {
        line += " " + event.object->serialize();
      } else {
        line += " " + boost::json::serialize(to_json(*event.object));
      }
    }
    if (event.status) line += " " + boost::json::serialize(rg::client::to_json(*event.status));
    out.push_back(std::move(line));
  }
  return out;
}

template <class T>
std::vector<std::string> decode_chunks(const std::vector<std::string_view>& chunks) {
  WatchDecoder<T> decoder;
  std::vector<WatchEvent<T>> events;
  for (const auto chunk : chunks) decoder.feed(chunk, events);
  decoder.finish();
  return render(events);
}

std::vector<std::string_view> split_every(std::string_view text, std::size_t size) {
  std::vector<std::string_view> chunks;
  for (std::size_t i = 0; i < text.size(); i += size) chunks.push_back(text.substr(i, size));
  return chunks;
}

// The error message a decoder fed `chunks` (then finished) throws.
template <class T = Pod>
std::string stream_error(const std::vector<std::string_view>& chunks,
                         WatchDecoderOptions options = {}) {
  WatchDecoder<T> decoder(options);
  std::vector<WatchEvent<T>> events;
  try {
    for (const auto chunk : chunks) decoder.feed(chunk, events);
    decoder.finish();
  } catch (const DecodeError& error) {
    return error.what();
  }
  FAIL("no DecodeError");
  return {};
}

TEST_CASE("a whole stream decodes into typed events") {
  WatchDecoder<Pod> decoder;
  std::vector<WatchEvent<Pod>> events;
  decoder.feed(kStream, events);
  decoder.finish();
  REQUIRE(events.size() == 5);
  CHECK(decoder.events() == 5);

  CHECK(events[0].type == WatchEventType::kAdded);
  CHECK(events[0].object->metadata.name == "a");
  CHECK(events[0].object->metadata.labels.at("app") ==
        "w\xc3\xa9"
        "b");
  CHECK(events[0].object->metadata.labels.at("k\"q") == "v\\w");
  CHECK(events[0].object->status.conditions.at(0).status == "True");

  CHECK(events[1].type == WatchEventType::kModified);
  CHECK(events[1].object->metadata.generation == 12345678901);
  CHECK(events[1].object->status.container_statuses.at(0).state.waiting->reason ==
        "CrashLoopBackOff");

  CHECK(events[2].type == WatchEventType::kDeleted);  // object before type
  CHECK(events[2].object->metadata.name == "c");
  CHECK(events[2].object->spec.node_name == "n3");

  CHECK(events[3].type == WatchEventType::kBookmark);
  CHECK(events[3].object->metadata.resource_version == "4");
  CHECK(events[3].object->metadata.annotations.at(std::string(kInitialEventsEndAnnotation)) ==
        "true");

  CHECK(events[4].type == WatchEventType::kError);
  CHECK(events[4].object == nullptr);
  REQUIRE(events[4].status != nullptr);
  CHECK(events[4].status->code == 410);
  CHECK(events[4].status->reason == "Expired");
  CHECK(events[4].status->message == "too old resource version: 123 (456)");
}

TEST_CASE("every split point of the stream gives identical events") {
  const auto whole = decode_chunks<Pod>({kStream});
  REQUIRE(whole.size() == 5);
  const std::string_view text = kStream;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    CAPTURE(i);
    REQUIRE(decode_chunks<Pod>({text.substr(0, i), text.substr(i)}) == whole);
  }
}

TEST_CASE("multi-split patterns give identical events, typed and unstructured") {
  const auto typed = decode_chunks<Pod>({kStream});
  const auto unstructured = decode_chunks<Unstructured>({kStream});
  REQUIRE(unstructured.size() == 5);
  for (const std::size_t size : {1, 2, 3, 7, 13, 64}) {
    CAPTURE(size);
    CHECK(decode_chunks<Pod>(split_every(kStream, size)) == typed);
    CHECK(decode_chunks<Unstructured>(split_every(kStream, size)) == unstructured);
  }
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string_view> chunks;
    std::string_view rest = kStream;
    while (!rest.empty()) {
      const std::size_t size = std::min<std::size_t>(rest.size(), random() % 40);
      chunks.push_back(rest.substr(0, size));  // empty chunks included
      rest.remove_prefix(size);
    }
    CHECK(decode_chunks<Pod>(chunks) == typed);
  }
}

TEST_CASE("every split point gives identical unstructured events") {
  const auto whole = decode_chunks<Unstructured>({kStream});
  const std::string_view text = kStream;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    CAPTURE(i);
    REQUIRE(decode_chunks<Unstructured>({text.substr(0, i), text.substr(i)}) == whole);
  }
}

TEST_CASE("unstructured events keep every field losslessly") {
  WatchDecoder<Unstructured> decoder;
  std::vector<WatchEvent<Unstructured>> events;
  decoder.feed(kStream, events);
  REQUIRE(events.size() == 5);
  CHECK(events[1].object->name() == "b");
  CHECK(events[1].object->object().at("spec").at("priority").as_double() == -1500.0);
  CHECK(events[1].object->object().at("metadata").at("managedFields").as_array().size() == 1);
  CHECK(events[2].type == WatchEventType::kDeleted);
  CHECK(events[2].object->name() == "c");
  CHECK(events[3].object->annotation(kInitialEventsEndAnnotation) == "true");
  CHECK(events[4].status->code == 410);
}

TEST_CASE("a stream truncated inside an event is an error after the complete events") {
  const std::string_view text = kStream;
  const auto cut = text.find("{\"type\":\"BOOKMARK\"") + 30;
  WatchDecoder<Pod> decoder;
  std::vector<WatchEvent<Pod>> events;
  decoder.feed(text.substr(0, cut), events);
  CHECK(events.size() == 3);
  CHECK_THROWS_WITH_AS(decoder.finish(),
                       "watch event 4: the stream ended inside the event, after 30 bytes of it "
                       "(truncated)",
                       DecodeError);
}

TEST_CASE("whitespace between and after events is fine; an empty stream has no events") {
  CHECK(decode_chunks<Pod>({"", " \n", "\r\n\t"}).empty());
  CHECK(
      decode_chunks<Pod>({"\n\n{\"type\":\"ADDED\",\"object\":{\"metadata\":{}}}  \n\n"}).size() ==
      1);
  CHECK(
      decode_chunks<Pod>(
          {R"({"type":"ADDED","object":{"metadata":{}}}{"type":"ADDED","object":{"metadata":{}}})"})
          .size() == 2);
}

TEST_CASE("invalid JSON is an error naming the event, and the decoder stays failed") {
  WatchDecoder<Pod> decoder;
  std::vector<WatchEvent<Pod>> events;
  decoder.feed(R"({"type":"ADDED","object":{"metadata":{}}})"
               "\n",
               events);
  const std::string expected =
      "watch event 2: invalid JSON at byte 15 of the document: syntax error";
  CHECK_THROWS_WITH_AS(decoder.feed(R"({"type":"ADDED"]})", events), expected.c_str(), DecodeError);
  CHECK(events.size() == 1);
  CHECK_THROWS_WITH_AS(decoder.feed("\n", events), expected.c_str(), DecodeError);
  CHECK_THROWS_WITH_AS(decoder.finish(), expected.c_str(), DecodeError);
}

TEST_CASE("the events before a bad one are handed over whatever the chunking") {
  // Found by test/fuzz/watch_decoder: when the bad event came in the same chunk as good ones,
  // feed() threw them away with it; fed in smaller chunks, the same body yielded them.
  const std::string body = R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                           "\n"
                           R"({"type":"MODIFIED","object":{"metadata":{"name":"a"}}})"
                           "\n"
                           R"({"type":"ADDED","object":{"metadata":[]}})";
  for (std::size_t chunk : {body.size(), std::size_t{7}, std::size_t{1}}) {
    CAPTURE(chunk);
    WatchDecoder<Pod> decoder;
    std::vector<WatchEvent<Pod>> events;
    bool failed = false;
    try {
      for (std::size_t at = 0; at < body.size(); at += chunk) {
        decoder.feed(std::string_view(body).substr(at, chunk), events);
      }
    } catch (const DecodeError&) {
      failed = true;
    }
    CHECK(failed);
    REQUIRE(events.size() == 2);
    CHECK(events[1].type == WatchEventType::kModified);
    CHECK(events[1].object->metadata.name == "a");
  }
}

TEST_CASE("an event over the size cap is an error; one at the cap is accepted") {
  const std::string event = R"({"type":"ADDED","object":{"metadata":{"name":"abcdefgh"}}})";
  WatchDecoderOptions options;
  options.max_event_bytes = event.size();
  WatchDecoder<Pod> decoder(options);
  std::vector<WatchEvent<Pod>> events;
  decoder.feed(event + "\n" + event, events);
  CHECK(events.size() == 2);

  options.max_event_bytes = event.size() - 1;
  CHECK(stream_error({event}, options) ==
        "watch event 1: JSON document larger than the limit of " +
            std::to_string(event.size() - 1) +
            " bytes (raise the limit if such objects are expected)");
  // Also when the oversized event arrives in small chunks, without buffering it.
  CHECK(stream_error(split_every(event, 5), options).find("larger than the limit") !=
        std::string::npos);
  CHECK(WatchDecoderOptions{}.max_event_bytes == 16u * 1024 * 1024);
}

TEST_CASE("an unknown event type is an error") {
  CHECK(stream_error({R"({"type":"SYNC","object":{"metadata":{}}})"}) ==
        "watch event 1: type: unknown watch event type \"SYNC\" (expected ADDED, MODIFIED, "
        "DELETED, BOOKMARK or ERROR)");
  CHECK(stream_error({R"({"object":{"metadata":{}},"type":"added"})"})
            .find("unknown watch event type \"added\"") != std::string::npos);
  CHECK(stream_error({R"({"type":7,"object":{"metadata":{}}})"}) ==
        "watch event 1: type: expected string, got number");
}

TEST_CASE("an object without metadata is an error, typed or unstructured") {
  CHECK(stream_error({R"({"type":"ADDED","object":{"kind":"Pod","spec":{}}})"}) ==
        "watch event 1: object: missing required field \"metadata\" (Pod without it)");
  CHECK(stream_error<Unstructured>({R"({"type":"ADDED","object":{"kind":"Pod","spec":{}}})"}) ==
        "watch event 1: object: missing required field \"metadata\"");
  CHECK(stream_error({R"({"object":{"kind":"Pod"},"type":"MODIFIED"})"}) ==
        "watch event 1: object: missing required field \"metadata\" (Pod without it)");
  CHECK(stream_error<Unstructured>({R"({"type":"ADDED","object":{"metadata":[]}})"}) ==
        "watch event 1: object.metadata: expected object, got array");
}

TEST_CASE("malformed events are errors naming what is wrong") {
  CHECK(stream_error({R"({"type":"ADDED"})"}) == "watch event 1: watch event without \"object\"");
  CHECK(stream_error({R"({"object":{"metadata":{}}})"}) ==
        "watch event 1: watch event without \"type\"");
  CHECK(stream_error({"[1]"}) == "watch event 1: expected a watch event object, got array");
  CHECK(stream_error({"\"ADDED\""}) == "watch event 1: expected a watch event object, got string");
  CHECK(stream_error({R"({"type":"ADDED","object":null})"}) ==
        "watch event 1: object: expected object, got null");
  CHECK(
      stream_error(
          {R"({"type":"ADDED","object":{"metadata":{},"status":{"conditions":[{"status":true}]}}})"}) ==
      "watch event 1: object.status.conditions[0].status: expected string, got boolean");
  CHECK(stream_error({R"({"object":{"metadata":{"name":1}},"type":"ADDED"})"}) ==
        "watch event 1: object.metadata.name: expected string, got number");
  CHECK(stream_error({R"({"type":"ERROR","object":{"code":"x"}})"}) ==
        "watch event 1: object: ERROR event without a valid metav1.Status object");
}

TEST_CASE("an ERROR whose object comes before its type still carries the Status") {
  WatchDecoder<Pod> decoder;
  std::vector<WatchEvent<Pod>> events;
  decoder.feed(R"({"object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
               R"("reason":"Gone","code":410},"type":"ERROR"})",
               events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == WatchEventType::kError);
  CHECK(events[0].object == nullptr);
  REQUIRE(events[0].status != nullptr);
  CHECK(events[0].status->reason == "Gone");
  CHECK(events[0].status->code == 410);
}

TEST_CASE("unknown keys of the event envelope are skipped") {
  const auto events = decode_chunks<Pod>(
      {R"({"extra":{"a":[1,{"b":null}]},"type":"ADDED","more":"x","object":{"metadata":{"name":"p"}}})"});
  REQUIRE(events.size() == 1);
  CHECK(events[0].find("\"name\":\"p\"") != std::string::npos);
}

TEST_CASE("event type names") {
  for (const auto type :
       {WatchEventType::kAdded, WatchEventType::kModified, WatchEventType::kDeleted,
        WatchEventType::kBookmark, WatchEventType::kError}) {
    CHECK(parse_watch_event_type(to_string(type)) == type);
  }
  CHECK_FALSE(parse_watch_event_type("Added").has_value());
}

}  // namespace
}  // namespace rg::client
