// Tests of ShortString: inline and heap storage, copies and moves, comparisons, and a Pod's
// condition status, reason and message decoded into it and encoded back.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

#include "client/model/codec.hpp"
#include "client/model/decode_error.hpp"
#include "client/model/pod.hpp"
#include "client/model/short_string.hpp"

namespace rg::client {
namespace {

TEST_CASE("a ShortString keeps up to 7 characters inline and longer text on the heap") {
  const ShortString empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.is_inline());
  CHECK(empty == "");
  for (const std::string_view status : {"True", "False", "Unknown"}) {
    const ShortString text(status);
    CHECK(text.is_inline());
    CHECK(text.size() == status.size());
    CHECK(text == status);
  }
  const ShortString eight("Unschedu");
  CHECK_FALSE(eight.is_inline());
  CHECK(eight.size() == 8);
  CHECK(eight.view() == "Unschedu");
  const ShortString with_nul(std::string_view("a\0b", 3));
  CHECK(with_nul.size() == 3);
  CHECK(with_nul.view() == std::string_view("a\0b", 3));
  const std::string long_text(300, 'm');
  CHECK(ShortString(long_text).view() == long_text);
}

TEST_CASE("ShortString copies, moves and assignments keep the text and own it") {
  for (const std::string text : {"False", "0 of 3 nodes are available: 3 Insufficient cpu."}) {
    ShortString original(text);
    ShortString copy(original);
    CHECK(copy == text);
    CHECK((copy.data() != original.data()));
    ShortString moved(std::move(copy));
    CHECK(moved == text);
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from string is empty
    ShortString assigned;
    assigned = original;
    CHECK(assigned == text);
    assigned = "True";
    CHECK(assigned == "True");
    assigned = std::move(original);
    CHECK(assigned == text);
    assigned.assign(assigned.view().substr(1));
    CHECK(assigned == text.substr(1));
    assigned = ShortString();
    CHECK(assigned.empty());
  }
}

TEST_CASE("ShortString compares, orders, hashes and prints as its text") {
  const ShortString a("Ready");
  CHECK(a == std::string("Ready"));
  CHECK(a == std::string_view("Ready"));
  CHECK(a != "ready");
  CHECK(a < ShortString("Unschedulable"));
  CHECK(ShortString("Unschedulable") > "Ready");
  const std::unordered_set<ShortString> set{"True", "False", "True"};
  CHECK(set.size() == 2);
  std::ostringstream out;
  out << a << '/' << ShortString("ContainersNotReady");
  CHECK(out.str() == "Ready/ContainersNotReady");
  const std::string copy = ShortString("x");
  CHECK(copy == "x");
}

TEST_CASE("a Pod's condition status, reason and message decode into ShortStrings and encode back") {
  const std::string json = R"({"metadata":{"name":"p"},"status":{"conditions":[
      {"type":"Ready","status":"True","lastTransitionTime":"2026-11-29T14:00:00Z"},
      {"type":"PodScheduled","status":"False","reason":"Unschedulable",
       "message":"0/3 nodes are available: 3 Insufficient cpu."}]}})";
  const auto pod = decode<Pod>(json);
  REQUIRE(pod.status.conditions.size() == 2);
  const PodCondition& ready = pod.status.conditions[0];
  CHECK(ready.status == "True");
  CHECK(ready.reason.empty());
  CHECK(ready.message.empty());
  const PodCondition& scheduled = pod.status.conditions[1];
  CHECK(scheduled.status == "False");
  CHECK(scheduled.reason == "Unschedulable");
  CHECK(scheduled.message == "0/3 nodes are available: 3 Insufficient cpu.");

  const auto encoded = to_json(pod);
  const auto& conditions = encoded.at("status").at("conditions").as_array();
  CHECK_FALSE(conditions.at(0).as_object().contains("reason"));
  CHECK_FALSE(conditions.at(0).as_object().contains("message"));
  CHECK(conditions.at(1).at("reason") == "Unschedulable");
  CHECK(conditions.at(1).at("message") == "0/3 nodes are available: 3 Insufficient cpu.");
  CHECK(decode<Pod>(boost::json::serialize(encoded)).status.conditions[1].message ==
        scheduled.message);

  CHECK_THROWS_WITH_AS(decode<Pod>(R"({"metadata":{},"status":{"conditions":[{"reason":7}]}})"),
                       "decoding Pod: status.conditions[0].reason: expected string, got number",
                       DecodeError);
}

}  // namespace
}  // namespace rg::client
