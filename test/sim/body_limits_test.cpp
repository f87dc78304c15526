// kube-sim's limits on what a body may hold, as the API server's: nesting (JSON and YAML read to
// kMaxNestingDepth, deeper is a 400 naming the limit), and a JSON patch's operations (413 past
// 10000), copies (422 past 3 MiB added) and result (422 Invalid on "patch" when it nests deeper
// than kube-sim reads).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cstddef>
#include <string>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/patch.hpp"

namespace json = boost::json;
using rg::sim::ApiError;
using rg::sim::json_patch;
using rg::sim::kJsonPatchMaxCopyBytes;
using rg::sim::kMaxJsonPatchOperations;
using rg::sim::kMaxNestingDepth;
using rg::sim::nesting_depth;
using rg::sim::parse_json_or_yaml;

namespace {

// {"a":{"a":...{"a":1}...}}, `levels` objects deep.
std::string nested_json(std::size_t levels) {
  std::string text;
  for (std::size_t i = 0; i < levels; ++i) text += R"({"a":)";
  text += "1";
  text.append(levels, '}');
  return text;
}

// The same in YAML's block style.
std::string nested_yaml(std::size_t levels) {
  std::string text;
  for (std::size_t i = 0; i < levels; ++i) {
    text.append(2 * i, ' ');
    text += i + 1 == levels ? "a: 1\n" : "a:\n";
  }
  return text;
}

// The ApiError `run` throws.
template <class Run>
rg::client::Status failure_of(Run run) {
  try {
    run();
  } catch (const ApiError& error) {
    return error.status();
  }
  FAIL("no ApiError");
  return {};
}

}  // namespace

TEST_CASE("nesting_depth counts the levels of objects and arrays") {
  CHECK(nesting_depth(json::value(3)) == 0);
  CHECK(nesting_depth(json::parse("{}")) == 1);
  CHECK(nesting_depth(json::parse(R"({"a":[1,{"b":[]}],"c":{}})")) == 4);
  CHECK(nesting_depth(json::parse(nested_json(30))) == 30);
}

TEST_CASE("bodies nest up to kube-sim's limit, as JSON or YAML; deeper is a 400 naming it") {
  // Boost.JSON's default stops at 32 levels: a deeper JSON body is still read as JSON.
  CHECK(nesting_depth(parse_json_or_yaml(nested_json(100))) == 100);
  CHECK(nesting_depth(parse_json_or_yaml(nested_json(kMaxNestingDepth))) == kMaxNestingDepth);
  CHECK(nesting_depth(parse_json_or_yaml(nested_yaml(kMaxNestingDepth))) == kMaxNestingDepth);
  for (const std::string& body :
       {nested_json(kMaxNestingDepth + 1), nested_yaml(kMaxNestingDepth + 1)}) {
    auto status = failure_of([&] { parse_json_or_yaml(body); });
    CHECK(status.code == 400);
    CHECK(status.message.find("nests deeper than 400 levels") != std::string::npos);
  }
}

TEST_CASE("a number beyond a double's range is a 400, not an infinity no JSON can carry") {
  for (const std::string body : {"1e999", R"({"spec":{"replicas":-1e400}})", "[1, 2e308]"}) {
    auto status = failure_of([&] { parse_json_or_yaml(body); });
    CHECK(status.code == 400);
    CHECK(status.message.find("out of a 64-bit float's range") != std::string::npos);
  }
  CHECK(parse_json_or_yaml("1.7e308").as_double() == 1.7e308);
  // YAML reads it as a string, as go-yaml does when the float does not parse.
  CHECK(parse_json_or_yaml("a: 1e999").at("a") == "1e999");
}

TEST_CASE("a JSON patch: at most 10000 operations, 3 MiB of copies, and a result kube-sim reads") {
  json::value target = json::parse(R"({"spec":{"data":""}})");

  json::array many;
  for (std::size_t i = 0; i <= kMaxJsonPatchOperations; ++i)
    many.push_back(json::parse(R"({"op":"test","path":"/spec/data","value":""})"));
  auto too_many = failure_of([&] { json_patch(target, many); });
  CHECK(too_many.code == 413);
  CHECK(too_many.message ==
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got "
        "10001");
  many.pop_back();
  CHECK_NOTHROW(json_patch(target, many));

  // 64 KiB copied into itself: twice the size with every copy, past 3 MiB after the sixth.
  target.at("spec").at("data") = std::string(64 * 1024, 'x');
  json::array doubling;
  for (int i = 0; i < 8; ++i) {
    doubling.push_back(json::parse(R"({"op":"copy","from":"/spec","path":"/spec/c)" +
                                   std::to_string(i) + R"("})"));
  }
  auto copies = failure_of([&] { json_patch(target, doubling); });
  CHECK(copies.code == 422);
  CHECK(copies.message.starts_with(
      "Unable to complete the copy, the accumulated size increase of copy is "));
  CHECK(
      copies.message.ends_with(", exceeding the limit " + std::to_string(kJsonPatchMaxCopyBytes)));

  // A value as deep as the limit, added one level down.
  json::value deep_value = parse_json_or_yaml(nested_json(kMaxNestingDepth));
  json::array add_deep{json::object{{"op", "add"}, {"path", "/spec/deep"}, {"value", deep_value}}};
  auto too_deep = failure_of([&] { json_patch(json::parse(R"({"spec":{}})"), add_deep); });
  CHECK(too_deep.code == 422);
  CHECK(too_deep.reason == "Invalid");
  CHECK(too_deep.message.starts_with(R"( "" is invalid: patch: Invalid value: "{)"));
  CHECK(too_deep.message.ends_with(R"(": exceeded max depth)"));
  json::array add_shallower{
      json::object{{"op", "add"}, {"path", "/deep"}, {"value", json::parse(nested_json(10))}}};
  CHECK(nesting_depth(json_patch(json::parse("{}"), add_shallower)) == 11);
}
