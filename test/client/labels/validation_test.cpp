// Tests of label key/value validation against apimachinery's rules.
#include <doctest/doctest.h>

#include <string>

#include "client/labels/validation.hpp"

using namespace rg::client;

TEST_CASE("valid label keys") {
  for (const std::string& key : std::initializer_list<std::string>{
           "app", "a", "A1", "app.kubernetes.io/name", "example.com/My_Name-1.x", "k8s.io/a",
           std::string(63, 'x'), std::string(253, 'a') + "/" + std::string(63, 'b')}) {
    CAPTURE(key);
    CHECK(label_key_problem(key).empty());
  }
}

TEST_CASE("invalid label keys say why") {
  struct Case {
    std::string key;
    std::string problem_start;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", "name part must be non-empty"},
           {"/app", "prefix part must be non-empty"},
           {"example.com/", "name part must be non-empty"},
           {"a/b/c", "a qualified name must consist of"},
           {"-app", "name part must consist of"},
           {"app-", "name part must consist of"},
           {"ap p", "name part must consist of"},
           {std::string(64, 'x'), "name part must be no more than 63 characters"},
           {"Example.com/app", "prefix part a lowercase RFC 1123 subdomain"},
           {"exa_mple.com/app", "prefix part a lowercase RFC 1123 subdomain"},
           {"example..com/app", "prefix part a lowercase RFC 1123 subdomain"},
           {std::string(254, 'a') + "/app", "prefix part must be no more than 253 characters"},
       }) {
    CAPTURE(c.key);
    CHECK(label_key_problem(c.key).starts_with(c.problem_start));
  }
}

TEST_CASE("label values") {
  CHECK(label_value_problem("").empty());
  CHECK(label_value_problem("web").empty());
  CHECK(label_value_problem("v1.2_3-x").empty());
  CHECK(label_value_problem(std::string(63, 'v')).empty());
  CHECK(label_value_problem(std::string(64, 'v')) == "must be no more than 63 characters");
  CHECK(label_value_problem("-web").starts_with("a valid label must be an empty string or"));
  CHECK(label_value_problem("a/b").starts_with("a valid label must be an empty string or"));
}
