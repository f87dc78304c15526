// Cache keys: "namespace/name" and "name", and what split rejects.
#include <doctest/doctest.h>

#include <stdexcept>

#include "informer/object_key.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using rg::informer::test::TestNode;
using rg::informer::test::TestPod;

static_assert(KubeObject<TestPod>);
static_assert(KubeObject<TestNode>);
static_assert(KubeObject<rg::client::ObjectMeta> == false);

TEST_CASE("meta_namespace_key joins namespace and name, or uses the bare name") {
  TestPod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = "web-1";
  CHECK(meta_namespace_key(pod) == "default/web-1");

  TestNode node;
  node.metadata.name = "node-a";
  CHECK(meta_namespace_key(node) == "node-a");
}

TEST_CASE("meta_namespace_key refuses an unnamed object") {
  TestPod pod;
  pod.metadata.namespace_ = "default";
  CHECK_THROWS_WITH_AS(meta_namespace_key(pod), doctest::Contains("has no metadata.name"),
                       std::invalid_argument);
}

TEST_CASE("assign_meta_namespace_key writes the same key over a reused string") {
  std::string key = "a much longer key left over from an earlier object/with a long name";
  TestPod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = "web-1";
  assign_meta_namespace_key(key, pod);
  CHECK(key == "default/web-1");
  TestNode node;
  node.metadata.name = "node-a";
  assign_meta_namespace_key(key, node);
  CHECK(key == "node-a");
  TestPod unnamed;
  unnamed.metadata.namespace_ = "default";
  CHECK_THROWS_WITH_AS(assign_meta_namespace_key(key, unnamed),
                       doctest::Contains("has no metadata.name"), std::invalid_argument);
  CHECK(key == "node-a");  // untouched by the refusal
}

TEST_CASE("split_meta_namespace_key inverts meta_namespace_key") {
  CHECK(split_meta_namespace_key("default/web-1") == ObjectName{"default", "web-1"});
  CHECK(split_meta_namespace_key("node-a") == ObjectName{"", "node-a"});
}

TEST_CASE("split_meta_namespace_key rejects malformed keys with the reason") {
  CHECK_THROWS_WITH_AS(split_meta_namespace_key(""), doctest::Contains("it is empty"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(split_meta_namespace_key("a/b/c"), doctest::Contains("more than one '/'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(split_meta_namespace_key("/b"), doctest::Contains("namespace"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(split_meta_namespace_key("a/"), doctest::Contains("name after"),
                       std::invalid_argument);
}
