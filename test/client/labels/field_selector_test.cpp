// Tests of FieldSelector: parsing, escaping, errors and matching.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "client/labels/field_selector.hpp"
#include "client/labels/selector_error.hpp"

using namespace rg::client;

namespace {

/// A field getter over a map; absent fields read as "".
auto getter(const std::map<std::string, std::string, std::less<>>& fields) {
  return [&fields](std::string_view field) -> std::string_view {
    auto it = fields.find(field);
    return it == fields.end() ? std::string_view() : std::string_view(it->second);
  };
}

}  // namespace

TEST_CASE("field selector parsing") {
  auto s = FieldSelector::parse("spec.nodeName!=n1,metadata.name=web");
  REQUIRE(s.requirements().size() == 2);
  // Terms are sorted, as apimachinery does.
  CHECK(s.requirements()[0] == FieldRequirement{"metadata.name", true, "web"});
  CHECK(s.requirements()[1] == FieldRequirement{"spec.nodeName", false, "n1"});
  CHECK(s.to_string() == "metadata.name=web,spec.nodeName!=n1");

  CHECK(FieldSelector::parse("metadata.name==web").to_string() == "metadata.name=web");
  CHECK(FieldSelector::parse("").empty());
  CHECK(FieldSelector::parse(",,").empty());
  CHECK(FieldSelector::parse("spec.nodeName=").requirements()[0].value.empty());
  CHECK(FieldSelector::parse("a!b=c").requirements()[0].field == "a!b");
}

TEST_CASE("the printed form is canonical: it parses back to the same selector") {
  // Found by test/fuzz/field_selector: terms were sorted as written, and `==` prints as `=`, so
  // `a==x,a=b` printed `a=x,a=b`, which parses (sorted) to a=b before a=x: another order.
  auto s = FieldSelector::parse("a==x,a=b");
  CHECK(s.to_string() == "a=b,a=x");
  CHECK(FieldSelector::parse(s.to_string()) == s);
  CHECK(FieldSelector::parse("a=x,a==b") == FieldSelector::parse("a==b,a=x"));
}

TEST_CASE("field selector escaping") {
  auto s = FieldSelector::parse(R"(metadata.name=a\,b\=c\\d)");
  REQUIRE(s.requirements().size() == 1);
  CHECK(s.requirements()[0].value == R"(a,b=c\d)");
  CHECK(s.to_string() == R"(metadata.name=a\,b\=c\\d)");
}

TEST_CASE("field selector errors name the selector, position and problem") {
  auto message = [](std::string_view text) -> std::string {
    try {
      FieldSelector::parse(text);
    } catch (const SelectorError& e) {
      return e.what();
    }
    return "parsed";
  };
  CHECK(message("metadata.name") ==
        "invalid field selector \"metadata.name\": at position 0: term \"metadata.name\" has no "
        "operator (use field=value, field==value or field!=value)");
  CHECK(message("a=b,=c") ==
        "invalid field selector \"a=b,=c\": at position 4: term \"=c\" has no field name");
  CHECK(message("a=b=c") ==
        "invalid field selector \"a=b=c\": at position 3: '=' in a value must be escaped as '\\='");
  CHECK(message(R"(a=b\x)") ==
        "invalid field selector \"a=b\\x\": at position 3: invalid escape sequence (only \\\\, "
        "\\, and \\= are allowed)");
  CHECK(message("a=b\\") != "parsed");
}

TEST_CASE("field selector matching") {
  std::map<std::string, std::string, std::less<>> pod{{"metadata.name", "web-1"},
                                                      {"spec.nodeName", "n1"}};
  CHECK(FieldSelector().matches(getter(pod)));
  CHECK(FieldSelector::parse("metadata.name=web-1").matches(getter(pod)));
  CHECK_FALSE(FieldSelector::parse("metadata.name=web-2").matches(getter(pod)));
  CHECK(FieldSelector::parse("spec.nodeName!=n2,metadata.name=web-1").matches(getter(pod)));
  CHECK_FALSE(FieldSelector::parse("spec.nodeName!=n1").matches(getter(pod)));
  // An absent field is the empty string: unscheduled pods match spec.nodeName=.
  CHECK(FieldSelector::parse("status.phase=").matches(getter(pod)));
  CHECK_FALSE(FieldSelector::parse("status.phase!=").matches(getter(pod)));
}

TEST_CASE("requires_exact_match") {
  auto s = FieldSelector::parse("spec.nodeName=n1,metadata.name!=x");
  CHECK(s.requires_exact_match("spec.nodeName") == "n1");
  CHECK_FALSE(s.requires_exact_match("metadata.name").has_value());
  CHECK_FALSE(s.requires_exact_match("status.phase").has_value());
}
