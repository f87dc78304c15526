// Unstructured objects: lossless round trips (unknown fields, key order, number forms) and the
// metadata readers.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "client/model/unstructured.hpp"

namespace rg::client {
namespace {

constexpr const char* kObject =
    R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns",)"
    R"("uid":"u","resourceVersion":"12","generation":3,"creationTimestamp":"2026-01-01T00:00:00Z",)"
    R"("labels":{"app":"web","tier":"front"},"annotations":{"k8s.io/initial-events-end":"true"},)"
    R"("ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"ou","controller":true}]},)"
    R"("spec":{"big":18446744073709551615,"neg":-5,"pi":3.25,"flag":false,"none":null,"list":[1,"a",{}]}})";

TEST_CASE("an unstructured object serializes back to equivalent text, in the same key order") {
  const auto object = Unstructured::parse(kObject);
  CHECK(boost::json::parse(object.serialize()) == boost::json::parse(kObject));
  CHECK(object.object().at("spec").at("big").is_uint64());
  CHECK(object.object().at("spec").at("neg").is_int64());
  CHECK(object.object().at("spec").at("pi").as_double() == 3.25);
  // Key order and every non-double form survive textually.
  constexpr const char* kNoDoubles =
      R"({"z":1,"a":{"y":[true,null,"s\"q"],"b":-2},"m":18446744073709551615})";
  CHECK(Unstructured::parse(kNoDoubles).serialize() == kNoDoubles);
}

TEST_CASE("metadata readers") {
  const auto object = Unstructured::parse(kObject);
  CHECK(object.api_version() == "example.com/v1");
  CHECK(object.kind() == "Widget");
  CHECK(object.name() == "w");
  CHECK(object.namespace_() == "ns");
  CHECK(object.uid() == "u");
  CHECK(object.resource_version() == "12");
  CHECK(object.generation() == 3);
  CHECK(object.creation_timestamp() == "2026-01-01T00:00:00Z");
  CHECK_FALSE(object.deletion_timestamp().has_value());
  CHECK(object.label("tier") == "front");
  CHECK_FALSE(object.label("missing").has_value());
  CHECK(object.annotation("k8s.io/initial-events-end") == "true");
  CHECK(object.labels().size() == 2);
  const ObjectMeta meta = object.metadata();
  CHECK(meta.name == "w");
  REQUIRE(meta.owner_references.size() == 1);
  CHECK(meta.owner_references[0].controller);
}

TEST_CASE("readers are empty for absent or mistyped fields; metadata() is strict") {
  const auto object = Unstructured::parse(R"({"metadata":{"name":5,"labels":"x"}})");
  CHECK(object.name().empty());
  CHECK(object.labels().empty());
  CHECK(object.generation() == 0);
  CHECK_THROWS_WITH_AS(object.metadata(), "decoding ObjectMeta: name: expected string, got number",
                       DecodeError);
  CHECK(Unstructured::parse("{}").name().empty());
}

TEST_CASE("set_resource_version creates metadata when needed") {
  auto object = Unstructured::parse(R"({"kind":"Pod"})");
  object.set_resource_version("99");
  CHECK(object.resource_version() == "99");
  CHECK(object.serialize() == R"({"kind":"Pod","metadata":{"resourceVersion":"99"}})");
}

TEST_CASE("only JSON objects parse as unstructured objects") {
  CHECK_THROWS_WITH_AS(Unstructured::parse("[1]"),
                       "decoding an unstructured object: expected object, got array", DecodeError);
  CHECK_THROWS_AS(Unstructured::parse("{"), DecodeError);
  CHECK_THROWS_AS(Unstructured::parse("\"x\""), DecodeError);
}

}  // namespace
}  // namespace rg::client
