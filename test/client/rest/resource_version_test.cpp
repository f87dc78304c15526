// Tests of find_resource_version: metadata.resourceVersion of a write's answer, without a DOM.
#include "client/rest/resource_version.hpp"
#include "test/roundtrip_fixtures.hpp"

#include <doctest/doctest.h>

using rg::client::find_resource_version;

TEST_CASE("resource version: the top-level metadata's, wherever it sits among the fields") {
  CHECK(find_resource_version(R"({"metadata":{"name":"web","resourceVersion":"42"}})") == "42");
  CHECK(
      find_resource_version(
          R"({"kind":"Deployment","spec":{"replicas":3,"template":{"metadata":{"resourceVersion":"no"}}},)"
          R"("metadata":{"labels":{"resourceVersion":"no"},"resourceVersion":"7"}})") == "7");
  CHECK(find_resource_version(R"({"metadata":{"managedFields":[{"resourceVersion":"no"}],)"
                              R"("resourceVersion":"8"},"status":{}})") == "8");
  CHECK(find_resource_version(R"({"metadata":{"resourceVersion":"a\"b\u0041"}})") == "a\"bA");
  CHECK(find_resource_version(" {\n \"metadata\" : { \"resourceVersion\" : \"9\" } }\n") == "9");
}

TEST_CASE("resource version: none when metadata has none, or the text is not such an object") {
  CHECK_FALSE(find_resource_version(R"({"metadata":{"name":"web"},"resourceVersion":"1"})"));
  CHECK_FALSE(find_resource_version(R"({"items":[{"metadata":{"resourceVersion":"1"}}]})"));
  CHECK_FALSE(find_resource_version(R"([{"metadata":{"resourceVersion":"1"}}])"));
  CHECK_FALSE(find_resource_version(R"({"metadata":{"resourceVersion":12}})"));
  CHECK_FALSE(find_resource_version(R"({"metadata":"resourceVersion"})"));
  CHECK_FALSE(find_resource_version(""));
  CHECK_FALSE(find_resource_version("not json"));
  CHECK_FALSE(find_resource_version(R"({"metadata":{"resourceVersion")"));
}

TEST_CASE("resource version: the Kubernetes round-trip fixtures of a Deployment and a Scale" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  for (const char* file : {"apps.v1.Deployment.json", "autoscaling.v1.Scale.json"})
    CHECK(find_resource_version(rg::testing::read_roundtrip_fixture(file)) ==
          "resourceVersionValue");
}
