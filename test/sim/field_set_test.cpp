// FieldSet algebra and the FieldsV1 encoding, and the object walks server-side apply builds on
// (field sets, comparisons, merges, removals), without HTTP.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <stdexcept>

#include "sim/apply/field_set.hpp"
#include "sim/apply/object_fields.hpp"

namespace json = boost::json;
using rg::sim::apply::FieldSet;

namespace {

FieldSet set_of(std::string_view fields_v1) { return FieldSet::from_json(json::parse(fields_v1)); }

json::object object_of(std::string_view text) { return json::parse(text).as_object(); }

}  // namespace

TEST_CASE("FieldsV1 round-trips, with '.' for members that have members below") {
  const auto text =
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}})";
  auto set = set_of(text);
  CHECK(set.to_json() == json::parse(text));
  CHECK(set.contains({"f:metadata", "f:labels"}));
  CHECK(set.contains({"f:metadata", "f:labels", "f:app"}));
  CHECK(!set.contains({"f:metadata"}));
  CHECK(set.contains_prefix({"f:spec", "f:containers"}));
  CHECK_THROWS_AS(FieldSet::from_json(json::parse(R"({"x:y":{}})")), std::invalid_argument);
  CHECK_THROWS_AS(FieldSet::from_json(json::parse(R"({"f:a":1})")), std::invalid_argument);
}

TEST_CASE("union, difference and intersection work member by member") {
  auto a = set_of(R"({"f:data":{"f:a":{},"f:b":{}}})");
  auto b = set_of(R"({"f:data":{"f:b":{},"f:c":{}}})");
  CHECK(a.union_with(b).to_json() == json::parse(R"({"f:data":{"f:a":{},"f:b":{},"f:c":{}}})"));
  CHECK(a.difference(b).to_json() == json::parse(R"({"f:data":{"f:a":{}}})"));
  CHECK(a.intersection(b).to_json() == json::parse(R"({"f:data":{"f:b":{}}})"));
  CHECK(a.difference(a).empty());
  CHECK(a.without_prefix({"f:data"}).empty());
  CHECK(a.without_prefix({"f:data", "f:x"}) == a);
  CHECK(a.without_prefix({"f:data", "f:a"}).to_json() == json::parse(R"({"f:data":{"f:b":{}}})"));
  // Parents left without members go; a parent that is a member itself stays.
  auto nested = set_of(R"({"f:m":{"f:l":{"f:a":{}}},"f:s":{".":{},"f:t":{}}})");
  CHECK(nested.without_prefix({"f:m", "f:l", "f:a"}).to_json() ==
        json::parse(R"({"f:s":{".":{},"f:t":{}}})"));
  CHECK(nested.without_prefix({"f:s", "f:t"}).to_json() ==
        json::parse(R"({"f:m":{"f:l":{"f:a":{}}},"f:s":{}})"));
  CHECK(a.only_prefix({"f:data", "f:a"}).to_json() == json::parse(R"({"f:data":{"f:a":{}}})"));
}

TEST_CASE("paths print as apply conflicts print them") {
  using rg::sim::apply::display_path;
  CHECK(display_path({"f:spec", "f:replicas"}) == ".spec.replicas");
  CHECK(display_path({"f:spec", "f:ports", R"(k:{"port":80,"protocol":"TCP"})", "f:name"}) ==
        R"(.spec.ports[port=80,protocol="TCP"].name)");
  CHECK(display_path({"f:metadata", "f:finalizers", R"(v:"example.com/f")"}) ==
        R"(.metadata.finalizers[="example.com/f"])");
  CHECK(display_path({"f:args", "i:2"}) == ".args[2]");
}

TEST_CASE("fields_of follows list types: keyed items, defaulted keys, sets, atomic lists") {
  auto fields = rg::sim::apply::fields_of(
      object_of(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":["a/b"]},
                    "spec":{"tolerations":[{"key":"k"}],"nodeSelector":{},
                            "containers":[{"name":"c","ports":[{"containerPort":80}]}]}})"),
      "Pod");
  CHECK(fields.to_json() == json::parse(
                                R"({"f:metadata":{"f:finalizers":{"v:\"a/b\"":{}}},
                "f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:name":{},
                            "f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},
                          "f:nodeSelector":{},"f:tolerations":{}}})"));
}

TEST_CASE("compare reports changed and removed fields; merge and remove follow keys") {
  using namespace rg::sim::apply;
  auto before = object_of(R"({"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},
                                      "template":{"spec":{"containers":[{"name":"c","image":"x"},{"name":"d"}]}}}})");
  auto after = object_of(R"({"spec":{"replicas":2,"selector":{"matchLabels":{"a":"c"}},
                                     "template":{"spec":{"containers":[{"name":"c","image":"y"}]}}}})");
  auto changes = compare(before, after, "Deployment");
  CHECK(changes.changed.to_json() ==
        json::parse(R"({"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:spec":{
            "f:containers":{"k:{\"name\":\"c\"}":{"f:image":{}}}}}}})"));
  CHECK(changes.removed.to_json() ==
        json::parse(R"({"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:containers":{
            "k:{\"name\":\"d\"}":{".":{},"f:name":{}}}}}}})"));

  auto merged = merge_configuration(
      before,
      object_of(
          R"({"spec":{"template":{"spec":{"containers":[{"name":"e"},{"name":"c","image":"z"}]}}}})"),
      "Deployment");
  CHECK(merged.at("spec").at("template").at("spec").at("containers") ==
        json::parse(R"([{"name":"c","image":"z"},{"name":"d"},{"name":"e"}])"));

  FieldSet gone;
  gone.insert({"f:spec", "f:template", "f:spec", "f:containers", R"(k:{"name":"d"})"});
  gone.insert({"f:spec", "f:template", "f:spec", "f:containers", R"(k:{"name":"c"})", "f:image"});
  remove_fields(merged, gone, "Deployment");
  CHECK(merged.at("spec").at("template").at("spec").at("containers") ==
        json::parse(R"([{"name":"c"},{"name":"e"}])"));
}

TEST_CASE("compare skips identical subtrees but finds a change deep beside them") {
  using namespace rg::sim::apply;
  const auto before = object_of(
      R"({"metadata":{"name":"d","annotations":{"a":"1"},"labels":{"app":"w"}},
          "spec":{"replicas":1,"template":{"metadata":{"labels":{"app":"w"}},"spec":{
              "containers":[{"name":"c","image":"x","env":[{"name":"A","value":"1"}]},
                            {"name":"d","image":"y"}]}}},
          "status":{"conditions":[{"type":"Available","status":"True"}]}})");
  // The same object, its keys in another order: nothing changed.
  auto same = object_of(
      R"({"status":{"conditions":[{"status":"True","type":"Available"}]},
          "spec":{"template":{"spec":{"containers":[{"name":"c","image":"x","env":[{"value":"1","name":"A"}]},
                                                    {"image":"y","name":"d"}]},
                              "metadata":{"labels":{"app":"w"}}},"replicas":1},
          "metadata":{"labels":{"app":"w"},"annotations":{"a":"1"},"name":"d"}})");
  auto nothing = compare(before, same, "Deployment");
  CHECK(nothing.changed.empty());
  CHECK(nothing.removed.empty());

  // Keyed list items swapped: matched by key, so still nothing.
  auto swapped = before;
  auto& containers =
      swapped["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"];
  containers = json::array{containers.as_array()[1], containers.as_array()[0]};
  nothing = compare(before, swapped, "Deployment");
  CHECK(nothing.changed.empty());
  CHECK(nothing.removed.empty());

  // One value deep in a list item; everything around it identical.
  auto deep = before;
  deep["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["env"]
      .as_array()[0]
      .as_object()["value"] = "2";
  auto changes = compare(before, deep, "Deployment");
  CHECK(changes.changed.to_json() ==
        json::parse(R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{
            "k:{\"name\":\"c\"}":{"f:env":{"k:{\"name\":\"A\"}":{"f:value":{}}}}}}}}})"));
  CHECK(changes.removed.empty());

  // An annotation added and a label removed; the unchanged spec and status add nothing.
  auto meta = before;
  meta["metadata"].as_object()["annotations"].as_object()["b"] = "2";
  meta["metadata"].as_object().erase("labels");
  changes = compare(before, meta, "Deployment");
  CHECK(changes.changed.to_json() == json::parse(R"({"f:metadata":{"f:annotations":{"f:b":{}}}})"));
  CHECK(changes.removed.to_json() ==
        json::parse(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})"));
}

TEST_CASE("encoded FieldsV1 is recognised exactly, and read in place") {
  const auto encoded =
      json::parse(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}})");
  CHECK(FieldSet::is_encoded(encoded));
  CHECK(FieldSet::is_encoded(set_of(json::serialize(encoded)).to_json()));
  for (const char* other : {R"({})",                                 // the empty set
                            R"({".":{},"f:a":{}})",                  // the root is never a member
                            R"({"f:b":{},"f:a":{}})",                // out of order
                            R"({"f:a":{".":{}}})",                   // "." alone is written {}
                            R"({"f:a":{".":{"f:x":{}},"f:b":{}}})",  // "." is empty
                            R"({"f:a":{"f:b":{},".":{}}})",          // "." comes first
                            R"({"f:a":1})", R"({"x:a":{}})", R"([])"})
    CHECK_MESSAGE(!FieldSet::is_encoded(json::parse(other)), other);

  CHECK(FieldSet::encoded_contains(encoded, {"f:metadata", "f:labels"}));
  CHECK(FieldSet::encoded_contains(encoded, {"f:metadata", "f:labels", "f:app"}));
  CHECK(FieldSet::encoded_contains(encoded, {"f:spec", "f:replicas"}));
  CHECK(!FieldSet::encoded_contains(encoded, {"f:metadata"}));
  CHECK(!FieldSet::encoded_contains(encoded, {"f:spec", "f:paused"}));
  CHECK(!FieldSet::encoded_contains(encoded, {"f:spec", "f:replicas", "f:x"}));
  CHECK(!FieldSet::encoded_contains(encoded, {}));
}
