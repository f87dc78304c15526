// Tests of LabelSelector: the parse/validation table with error texts, matching, canonical
// strings and the conversion from metav1.LabelSelector.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "client/labels/label_selector.hpp"
#include "client/labels/selector_error.hpp"

using namespace rg::client;

namespace {

std::string parse_error(std::string_view text) {
  try {
    LabelSelector::parse(text);
  } catch (const SelectorError& e) {
    return e.what();
  }
  return "parsed";
}

}  // namespace

TEST_CASE("valid selectors and their canonical strings") {
  struct Case {
    std::string_view input;
    std::string_view canonical;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", ""},
           {"   ", ""},
           {"app=web", "app=web"},
           {"app==web", "app==web"},
           {"app!=web", "app!=web"},
           {"app", "app"},
           {"!app", "!app"},
           {" ! app ", "!app"},
           {"app=", "app="},
           {"app=,tier", "app=,tier"},
           {"tier in (b,a,b)", "tier in (a,b)"},
           {"tier notin (x)", "tier notin (x)"},
           {"tier in (a,)", "tier in (,a)"},
           {"tier in (,a)", "tier in (,a)"},
           {"tier in (a,,b)", "tier in (,a,b)"},
           {"x in (in,notin)", "x in (in,notin)"},
           {"tier in(a)", "tier in (a)"},
           {"z=1, a in (x), m, !b", "a in (x),!b,m,z=1"},
           {"example.com/app=v1.2_3", "example.com/app=v1.2_3"},
           {"replicas>2", "replicas>2"},
           {"replicas<-3", "replicas<-3"},
       }) {
    CAPTURE(c.input);
    CHECK(LabelSelector::parse(c.input).to_string() == c.canonical);
  }
  // Canonical strings parse back to the same selector.
  auto s = LabelSelector::parse("z=1,a in (y,x),!b");
  CHECK(LabelSelector::parse(s.to_string()) == s);
}

TEST_CASE("a set of only the empty value prints as one that parses back") {
  // Found by test/fuzz/label_selector: `tier in (,,)` is the set {""}, which printed as
  // `tier in ()`, the empty set, which does not parse. `(,)` is {""} again.
  for (std::string_view input : {"tier in (,,)", "tier in (,)", "tier notin (,)"}) {
    CAPTURE(input);
    auto selector = LabelSelector::parse(input);
    REQUIRE(selector.requirements().size() == 1);
    CHECK(selector.requirements()[0].values == std::vector<std::string>{""});
    CHECK(selector.to_string().ends_with(" (,)"));
    CHECK(LabelSelector::parse(selector.to_string()) == selector);
  }
  CHECK(parse_error("tier in ()") != "parsed");
}

TEST_CASE("invalid selectors name the selector, the position and the problem") {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  for (
      const Case& c : std::initializer_list<Case>{
          {"app=web,",
           R"x(invalid label selector "app=web,": at position 8: found 'end of string', expected '!' or a key after ',')x"},
          {",app",
           R"x(invalid label selector ",app": at position 0: found ',', expected '!', a key or end of string)x"},
          {"app web",
           R"x(invalid label selector "app web": at position 4: found 'web', expected an operator: =, ==, !=, in, notin, >, <)x"},
          {"app=web=x",
           R"x(invalid label selector "app=web=x": at position 7: found '=', expected ',' or end of string)x"},
          {"app=(",
           R"x(invalid label selector "app=(": at position 4: found '(', expected a value)x"},
          {"tier in a",
           R"x(invalid label selector "tier in a": at position 8: found 'a', expected '(')x"},
          {"tier in (a",
           R"x(invalid label selector "tier in (a": at position 10: found 'end of string', expected ',' or ')')x"},
          {"tier in (a b)",
           R"x(invalid label selector "tier in (a b)": at position 11: found 'b', expected ',' or ')')x"},
          {"tier in ()",
           R"x(invalid label selector "tier in ()": at position 0: for 'in', 'notin' operators, values set can't be empty)x"},
          {"!app=web",
           R"x(invalid label selector "!app=web": at position 4: found '=', expected ',' or end of string)x"},
          {"!",
           R"x(invalid label selector "!": at position 1: found 'end of string', expected a key)x"},
          {"a,-app=x",
           R"x(invalid label selector "a,-app=x": at position 2: key "-app": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc'))x"},
          {"Bad.Prefix/app",
           R"x(invalid label selector "Bad.Prefix/app": at position 0: key "Bad.Prefix/app": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com'))x"},
          {"app=-web",
           R"x(invalid label selector "app=-web": at position 0: value "-web" of key "app": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345'))x"},
          {"replicas>two",
           R"x(invalid label selector "replicas>two": at position 0: for '>', '<' operators, the value must be an integer, not "two")x"},
      }) {
    CAPTURE(c.input);
    CHECK(parse_error(c.input) == c.message);
  }
  CHECK(parse_error("app=" + std::string(64, 'v')).find("must be no more than 63 characters") !=
        std::string::npos);
  CHECK(parse_error("tier in (" + std::string(64, 'v') + ")")
            .find("must be no more than 63 characters") != std::string::npos);
}

TEST_CASE("SelectorError carries its parts") {
  try {
    LabelSelector::parse("a in (b");
    FAIL("parsed");
  } catch (const SelectorError& e) {
    CHECK(e.selector() == "a in (b");
    CHECK(e.position() == 7);
    CHECK(e.problem() == "found 'end of string', expected ',' or ')'");
  }
}

TEST_CASE("matching") {
  const Labels pod{{"app", "web"}, {"tier", "front"}, {"replicas", "3"}, {"empty", ""}};
  struct Case {
    std::string_view selector;
    bool matches;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", true},
           {"app=web", true},
           {"app==web", true},
           {"app=db", false},
           {"app!=db", true},
           {"app!=web", false},
           {"missing!=x", true},
           {"app", true},
           {"missing", false},
           {"!missing", true},
           {"!app", false},
           {"tier in (back,front)", true},
           {"tier in (back)", false},
           {"missing in (a)", false},
           {"tier notin (back)", true},
           {"tier notin (front)", false},
           {"missing notin (a)", true},
           {"empty=", true},
           {"empty", true},
           {"app=", false},
           {"app=web,tier=front,!canary", true},
           {"app=web,tier=back", false},
           {"replicas>2", true},
           {"replicas>3", false},
           {"replicas<4", true},
           {"app>1", false},
           {"missing<1", false},
       }) {
    CAPTURE(c.selector);
    CHECK(LabelSelector::parse(c.selector).matches(pod) == c.matches);
  }
  CHECK(LabelSelector().matches(Labels{}));
  CHECK(LabelSelector().empty());
  CHECK_FALSE(LabelSelector::nothing().matches(Labels{}));
  CHECK_FALSE(LabelSelector::nothing().empty());
}

TEST_CASE("requires_exact_match") {
  auto s = LabelSelector::parse("app=web,tier in (front),env in (a,b),team==x,zone!=z");
  CHECK(s.requires_exact_match("app") == "web");
  CHECK(s.requires_exact_match("tier") == "front");
  CHECK(s.requires_exact_match("team") == "x");
  CHECK_FALSE(s.requires_exact_match("env").has_value());
  CHECK_FALSE(s.requires_exact_match("zone").has_value());
  CHECK_FALSE(s.requires_exact_match("missing").has_value());
}

TEST_CASE("from_match renders like LabelSelectorAsSelector") {
  Labels match_labels{{"app", "web"}};
  std::vector<MatchExpression> expressions{
      {"tier", "In", {"b", "a"}},
      {"canary", "DoesNotExist", {}},
      {"env", "NotIn", {"prod"}},
      {"team", "Exists", {}},
  };
  auto s = LabelSelector::from_match(match_labels, expressions);
  CHECK(s.to_string() == "app=web,!canary,env notin (prod),team,tier in (a,b)");
  CHECK(s.matches(Labels{{"app", "web"}, {"tier", "a"}, {"team", "x"}}));
  CHECK_FALSE(s.matches(Labels{{"app", "web"}, {"tier", "a"}}));

  CHECK(LabelSelector::from_match(Labels{}).empty());
}

TEST_CASE("from_match accepts any requirement struct with key, operator_ and values") {
  struct Requirement {  // shaped like client/model's LabelSelectorRequirement
    std::string key;
    std::string operator_;
    std::vector<std::string> values;
  };
  std::vector<Requirement> expressions{{"tier", "NotIn", {"db"}}};
  auto s = LabelSelector::from_match(Labels{{"app", "web"}}, expressions);
  CHECK(s.to_string() == "app=web,tier notin (db)");
}

TEST_CASE("from_match errors name the entry") {
  auto message = [](const Labels& labels, std::vector<MatchExpression> expressions) {
    try {
      LabelSelector::from_match(labels, expressions);
    } catch (const SelectorError& e) {
      return std::string(e.what());
    }
    return std::string("converted");
  };
  CHECK(
      message({}, {{"tier", "Equals", {"a"}}}) ==
      R"x(invalid label selector: matchExpressions[0] (key "tier", operator "Equals"): "Equals" is not a valid label selector operator (use In, NotIn, Exists or DoesNotExist))x");
  CHECK(
      message({}, {{"tier", "In", {}}}) ==
      R"x(invalid label selector: matchExpressions[0] (key "tier", operator "In"): for 'in', 'notin' operators, values set can't be empty)x");
  CHECK(
      message({}, {{"tier", "Exists", {"a"}}}) ==
      R"x(invalid label selector: matchExpressions[0] (key "tier", operator "Exists"): values set must be empty for exists and does not exist)x");
  CHECK(
      message({{"app", "a b"}}, {})
          .starts_with(
              R"x(invalid label selector: matchLabels["app"]: value "a b" of key "app": a valid label)x"));
}

TEST_CASE("from_json") {
  auto s = LabelSelector::from_json(boost::json::parse(
      R"x({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["x"]}]})x"));
  CHECK(s.to_string() == "app=web,tier in (x)");
  CHECK(LabelSelector::from_json(boost::json::parse("{}")).empty());
  CHECK(LabelSelector::from_json(boost::json::value()).matches_nothing());
  CHECK_THROWS_AS(LabelSelector::from_json(boost::json::parse(R"({"matchLabels":[1]})")),
                  SelectorError);
  CHECK_THROWS_AS(LabelSelector::from_json(boost::json::parse(R"({"matchLabels":{"app":1}})")),
                  SelectorError);
}
