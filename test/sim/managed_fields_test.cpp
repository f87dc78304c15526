// managedFields bookkeeping without HTTP: entries in the encoded form are recognised exactly, a
// write keeps the entries it does not touch as they are and re-encodes the others, and entries
// sent in another form are encoded (or dropped when they are no entry).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>

#include "sim/apply/field_manager.hpp"
#include "sim/apply/managed_fields.hpp"

namespace json = boost::json;
using rg::sim::apply::encode_entry;
using rg::sim::apply::entry_of;
using rg::sim::apply::is_encoded_entry;
using rg::sim::apply::record_update;
using rg::sim::apply::WriteTarget;

namespace {

json::object parse_object(std::string_view text) { return json::parse(text).as_object(); }

const json::array& managed_fields(const json::object& object) {
  return object.at("metadata").at("managedFields").as_array();
}

}  // namespace

TEST_CASE("is_encoded_entry: exactly what encode_entry writes") {
  const auto item = parse_object(
      R"({"manager":"m","operation":"Update","apiVersion":"apps/v1","time":"2020-01-01T00:00:00Z",
          "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"})");
  REQUIRE(entry_of(item).has_value());
  CHECK(encode_entry(*entry_of(item)) == item);
  CHECK(is_encoded_entry(item));
  // (boost::json's erase() moves the last member into the gap: build it, not erase.)
  const auto without_optional = parse_object(
      R"({"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
          "fieldsV1":{"f:data":{}}})");
  CHECK(is_encoded_entry(without_optional));

  auto variant = [&](auto change) {
    json::object copy = item;
    change(copy);
    return is_encoded_entry(copy);
  };
  CHECK(!variant([](json::object& o) { o["time"] = ""; }));
  CHECK(!variant([](json::object& o) { o["subresource"] = ""; }));
  CHECK(!variant([](json::object& o) { o["extra"] = 1; }));
  CHECK(!variant([](json::object& o) { o["fieldsType"] = "FieldsV2"; }));
  CHECK(!variant([](json::object& o) { o["operation"] = "Patch"; }));
  CHECK(!variant([](json::object& o) { o["manager"] = 1; }));
  CHECK(!variant([](json::object& o) { o["fieldsV1"] = json::object(); }));
  CHECK(!variant([](json::object& o) { o["fieldsV1"] = json::parse(R"({"f:a":{".":{}}})"); }));
  CHECK(!variant([](json::object& o) {
    auto manager = o.at("manager");
    o.erase("manager");
    o["manager"] = manager;  // now last
  }));
}

TEST_CASE("record_update keeps untouched entries as they are and re-encodes touched ones") {
  const auto before = parse_object(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"d","labels":{"x":"1"},"managedFields":[
        {"manager":"b","operation":"Update","apiVersion":"apps/v1","time":"2020-01-01T00:00:00Z",
         "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}},
        {"manager":"a","operation":"Update","apiVersion":"apps/v1","time":"2021-01-01T00:00:00Z",
         "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:paused":{},"f:replicas":{}}}}]},
      "spec":{"replicas":1,"paused":false}})");
  auto after = before;
  after["spec"].as_object()["replicas"] = 3;
  record_update(&before, after, WriteTarget{"Deployment", "apps/v1", true, "", "c"});

  const auto& entries = managed_fields(after);
  REQUIRE(entries.size() == 3);
  CHECK(entries.at(0) == managed_fields(before).at(0));  // b: untouched, as it was
  CHECK(entries.at(1) == parse_object(R"({"manager":"a","operation":"Update","apiVersion":"apps/v1",
      "time":"2021-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:paused":{}}}})"));
  const auto& writer = entries.at(2).as_object();
  CHECK(writer.at("manager") == "c");
  CHECK(writer.at("fieldsV1") == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  CHECK(is_encoded_entry(writer));

  // The writer takes the rest of a's fields: a's entry, left empty, goes.
  auto next = after;
  next["spec"].as_object()["paused"] = true;
  record_update(&after, next, WriteTarget{"Deployment", "apps/v1", true, "", "c"});
  const auto& last = managed_fields(next);
  REQUIRE(last.size() == 2);
  CHECK(last.at(0) == entries.at(0));
  CHECK(last.at(1).at("manager") == "c");
  CHECK(last.at(1).at("fieldsV1") == json::parse(R"({"f:spec":{"f:paused":{},"f:replicas":{}}})"));
}

TEST_CASE("managedFields sent in another form are encoded, and what is no entry is dropped") {
  const auto before = parse_object(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"c"},"data":{"k":"v"}})");
  auto after = before;
  after["metadata"].as_object()["managedFields"] = json::parse(R"([
      {"fieldsV1":{"f:data":{"f:k":{".":{}}}},"operation":"Update","manager":"m","apiVersion":"v1",
       "extra":true},
      {"manager":"x","operation":"Patch","apiVersion":"v1","fieldsV1":{"f:data":{}}},
      {"manager":"y","operation":"Update","apiVersion":"v1","fieldsV1":{}},
      {"manager":"z","operation":"Update","apiVersion":"v1","fieldsV1":{"q:data":{}}},
      "not an entry"])");
  record_update(&before, after, WriteTarget{"ConfigMap", "v1", false, "", "m"});
  CHECK(after.at("metadata").at("managedFields") == json::parse(R"([
      {"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
       "fieldsV1":{"f:data":{"f:k":{}}}}])"));

  // None left: no managedFields at all.
  auto none = before;
  none["metadata"].as_object()["managedFields"] = json::array{"nothing"};
  record_update(&before, none, WriteTarget{"ConfigMap", "v1", false, "", "m"});
  CHECK(!none.at("metadata").as_object().contains("managedFields"));
}
