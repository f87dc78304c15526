// A projection declared outside the library with the public schema names (client::Tag,
// client::StructDesc, client::field), as a custom resource is; ConfigMap; Condition and
// set_status_condition (apimachinery's meta.SetStatusCondition).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "client/model/codec.hpp"
#include "client/model/condition.hpp"
#include "client/model/config_map.hpp"
#include "client/model/schema.hpp"

namespace user {

struct GadgetSpec {
  std::string color;
  std::int32_t size = 0;
};

struct Gadget {
  rg::client::ObjectMeta metadata;
  GadgetSpec spec;
  std::vector<rg::client::Condition> conditions;
};

const rg::client::StructDesc& schema_of(rg::client::Tag<GadgetSpec>) {
  static constexpr rg::client::FieldDesc fields[] = {
      rg::client::field<&GadgetSpec::color>("color"),
      rg::client::field<&GadgetSpec::size>("size"),
  };
  static constexpr rg::client::StructDesc desc{"GadgetSpec", fields};
  return desc;
}

const rg::client::StructDesc& schema_of(rg::client::Tag<Gadget>) {
  static constexpr rg::client::FieldDesc fields[] = {
      rg::client::field<&Gadget::metadata>("metadata", true),
      rg::client::field<&Gadget::spec>("spec"),
      rg::client::field<&Gadget::conditions>("conditions"),
  };
  static constexpr rg::client::StructDesc desc{"Gadget", fields, "example.com/v1", "Gadget"};
  return desc;
}

}  // namespace user

namespace rg::client {
namespace {

using namespace std::chrono_literals;

TEST_CASE(
    "a projection declared in the user's namespace decodes and encodes like a built-in kind") {
  const auto gadget = decode<user::Gadget>(
      R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"shop",)"
      R"("generation":4},"spec":{"color":"blue","size":3,"unkept":true},"conditions":[{"type":"Ready",)"
      R"("status":"True","observedGeneration":4,"lastTransitionTime":"2026-11-29T14:00:00Z",)"
      R"("reason":"Done","message":"ok"}]})");
  CHECK(gadget.metadata.name == "g");
  CHECK(gadget.metadata.generation == 4);
  CHECK(gadget.spec.color == "blue");
  CHECK(gadget.spec.size == 3);
  REQUIRE(gadget.conditions.size() == 1);
  CHECK(gadget.conditions[0].last_transition_time == parse_rfc3339("2026-11-29T14:00:00Z"));
  CHECK(boost::json::serialize(to_json(gadget.spec)) == R"({"color":"blue","size":3})");
  const auto encoded = to_json(gadget);
  CHECK(encoded.at("apiVersion") == "example.com/v1");
  CHECK(encoded.at("kind") == "Gadget");
  CHECK(encoded.at("conditions").at(0).at("lastTransitionTime") == "2026-11-29T14:00:00Z");
  CHECK_THROWS_AS(decode<user::Gadget>(R"({"spec":{"size":"three"}})"), DecodeError);
}

TEST_CASE("a ConfigMap keeps data, binaryData and immutable") {
  const std::string json =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"shop","generation":0},)"
      R"("data":{"a":"1","b":"two"},"binaryData":{"z":"AAE="},"immutable":true})";
  const auto config_map = decode<ConfigMap>(json);
  CHECK(config_map.data == Labels{{"a", "1"}, {"b", "two"}});
  CHECK(config_map.binary_data.at("z") == "AAE=");
  CHECK(config_map.immutable == true);
  CHECK(boost::json::serialize(to_json(config_map)) == json);
}

TEST_CASE("set_status_condition adds, keeps the transition time unless status changes") {
  const WallTime t0 = WallTime{} + 1000h;
  const WallTime t1 = t0 + 1min;
  std::vector<Condition> conditions;
  CHECK(set_status_condition(conditions, {.type = "Ready", .status = "False", .reason = "Waiting"},
                             t0));
  REQUIRE(conditions.size() == 1);
  CHECK(conditions[0].last_transition_time == t0);
  CHECK(find_status_condition(conditions, "Ready") == &conditions[0]);
  CHECK(find_status_condition(conditions, "Degraded") == nullptr);

  SUBCASE("the same condition again changes nothing") {
    CHECK_FALSE(set_status_condition(
        conditions, {.type = "Ready", .status = "False", .reason = "Waiting"}, t1));
    CHECK(conditions[0].last_transition_time == t0);
  }
  SUBCASE("a new reason, message or generation is taken, the transition time stays") {
    CHECK(set_status_condition(conditions,
                               {.type = "Ready",
                                .status = "False",
                                .observed_generation = 2,
                                .reason = "Still",
                                .message = "m"},
                               t1));
    CHECK(conditions[0].reason == "Still");
    CHECK(conditions[0].message == "m");
    CHECK(conditions[0].observed_generation == 2);
    CHECK(conditions[0].last_transition_time == t0);
  }
  SUBCASE("a new status moves the transition time: to now, or to the one given") {
    CHECK(set_status_condition(conditions, {.type = "Ready", .status = "True", .reason = "Done"},
                               t1));
    CHECK(conditions[0].status == "True");
    CHECK(conditions[0].last_transition_time == t1);
    const WallTime given = t1 + 1h;
    CHECK(set_status_condition(
        conditions, {.type = "Ready", .status = "False", .last_transition_time = given}, t1));
    CHECK(conditions[0].last_transition_time == given);
  }
  SUBCASE("another type is added beside it") {
    CHECK(set_status_condition(conditions, {.type = "Degraded", .status = "False"}, t1));
    CHECK(conditions.size() == 2);
  }
}

}  // namespace
}  // namespace rg::client
