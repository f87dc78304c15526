// Indexer: storage by key, secondary indexes kept in step with every write, atomic replace,
// the transform hook, and the read-only guarantee on cached objects.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "client/model/deployment.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "informer/indexer.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;

namespace {

// Cached objects are shared and read-only: `indexer.get_by_key(k)->node_name = "x"` does not
// compile (assignment to a member of a const object). This is what the static_assert pins; the
// commented line is the compile-fail case.
static_assert(std::is_const_v<std::remove_reference_t<decltype(*Indexer<TestPod>::ObjectPtr{})>>);
// Indexer<TestPod> idx; idx.get_by_key("a/b")->node_name = "x";   // error: read-only object

Indexers<TestPod> with_node_index() {
  auto indexers = default_indexers<TestPod>();
  indexers.emplace("spec.nodeName",
                   index_by<TestPod>([](const TestPod& p) { return p.node_name; }));
  return indexers;
}

std::vector<std::string> names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  out.reserve(pods.size());
  for (const auto& pod : pods) out.emplace_back(pod->metadata.name);
  return out;
}

}  // namespace

TEST_CASE("add, get_by_key, list and list_keys") {
  Indexer<TestPod> indexer;
  auto stored = indexer.add(make_pod("ns1", "a", "1"));
  indexer.add(make_pod("ns2", "b", "2"));

  CHECK(indexer.size() == 2);
  CHECK(indexer.get_by_key("ns1/a") == stored);
  CHECK(indexer.get_by_key("ns1/missing") == nullptr);
  auto keys = indexer.list_keys();
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"ns1/a", "ns2/b"});
  CHECK(indexer.list().size() == 2);
}

TEST_CASE("the namespace index is built in") {
  Indexer<TestPod> indexer;
  indexer.add(make_pod("ns1", "b", "1"));
  indexer.add(make_pod("ns1", "a", "1"));
  indexer.add(make_pod("ns2", "c", "1"));
  CHECK(names(indexer.by_index(kNamespaceIndex, "ns1")) == std::vector<std::string>{"a", "b"});
  CHECK(indexer.index_keys(kNamespaceIndex, "ns2") == std::vector<std::string>{"ns2/c"});
  CHECK(indexer.list_index_func_values(kNamespaceIndex) == std::vector<std::string>{"ns1", "ns2"});
  CHECK(indexer.by_index(kNamespaceIndex, "none").empty());
}

TEST_CASE("by_index and index_keys return keys sorted, however they were added") {
  Indexer<TestPod> indexer;
  std::vector<std::string> expected;
  for (int i = 0; i < 200; ++i) {
    const int n = (i * 37) % 200;  // a permutation of 0..199
    indexer.add(make_pod("ns", "pod-" + std::to_string(1000 + n), "1"));
    expected.push_back("ns/pod-" + std::to_string(1000 + i));
  }
  CHECK(indexer.index_keys(kNamespaceIndex, "ns") == expected);
  const auto pods = indexer.by_index(kNamespaceIndex, "ns");
  REQUIRE(pods.size() == expected.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    CHECK(meta_namespace_key(*pods[i]) == expected[i]);
  }
}

TEST_CASE("an update moves the key between index values and leaves no empty bucket") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.add(make_pod("ns", "p1", "1", "node-a"));
  indexer.add(make_pod("ns", "p2", "1", "node-a"));
  indexer.update(make_pod("ns", "p1", "2", "node-b"));

  CHECK(indexer.index_keys("spec.nodeName", "node-a") == std::vector<std::string>{"ns/p2"});
  CHECK(indexer.index_keys("spec.nodeName", "node-b") == std::vector<std::string>{"ns/p1"});

  indexer.update(make_pod("ns", "p2", "2", "node-b"));
  CHECK(indexer.list_index_func_values("spec.nodeName") == std::vector<std::string>{"node-b"});

  indexer.update(make_pod("ns", "p2", "3", ""));  // unscheduled: not indexed
  CHECK(indexer.index_keys("spec.nodeName", "node-b") == std::vector<std::string>{"ns/p1"});
}

TEST_CASE("add_or_update returns what it replaced and what it stored, in one write") {
  Indexer<TestPod> indexer(with_node_index());
  auto first = indexer.add_or_update(make_pod("ns", "p1", "1", "node-a"));
  CHECK(first.previous == nullptr);
  REQUIRE(first.stored != nullptr);
  CHECK(first.stored->metadata.resource_version == "1");

  auto second = indexer.add_or_update(make_pod("ns", "p1", "2", "node-b"));
  CHECK(second.previous == first.stored);
  CHECK(second.stored->metadata.resource_version == "2");
  CHECK(indexer.get_by_key("ns/p1") == second.stored);
  CHECK(indexer.size() == 1);
  CHECK(indexer.index_keys("spec.nodeName", "node-b") == std::vector<std::string>{"ns/p1"});
  CHECK(indexer.index_size("spec.nodeName", "node-a") == 0);
}

TEST_CASE("for_each_in_index visits an index value's objects; index_size counts them") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.add(make_pod("ns", "p1", "1", "node-a"));
  indexer.add(make_pod("ns", "p2", "1", "node-a"));
  indexer.add(make_pod("ns", "p3", "1", "node-b"));
  std::vector<std::string> seen;
  indexer.for_each_in_index("spec.nodeName", "node-a",
                            [&](const TestPod& pod) { seen.emplace_back(pod.metadata.name); });
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{"p1", "p2"});
  CHECK(indexer.index_size("spec.nodeName", "node-a") == 2);
  CHECK(indexer.index_size("spec.nodeName", "node-c") == 0);

  indexer.update(make_pod("ns", "p2", "2", "node-b"));
  CHECK(indexer.index_size("spec.nodeName", "node-a") == 1);
  CHECK(indexer.index_size("spec.nodeName", "node-b") == 2);
  indexer.remove("ns/p1");
  int visits = 0;
  indexer.for_each_in_index("spec.nodeName", "node-a", [&](const TestPod&) { ++visits; });
  CHECK(visits == 0);
  CHECK(indexer.index_size("spec.nodeName", "node-a") == 0);
  CHECK_THROWS_AS(indexer.index_size("no-such-index", "x"), std::invalid_argument);
}

TEST_CASE("remove drops the object from every index") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.add(make_pod("ns", "p1", "1", "node-a"));
  auto removed = indexer.remove("ns/p1");
  REQUIRE(removed);
  CHECK(removed->metadata.name == "p1");
  CHECK(indexer.remove("ns/p1") == nullptr);
  CHECK(indexer.size() == 0);
  CHECK(indexer.list_index_func_values("spec.nodeName").empty());
  CHECK(indexer.list_index_func_values(kNamespaceIndex).empty());
}

TEST_CASE("replace swaps the whole contents and rebuilds the indexes") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.add(make_pod("ns", "old", "1", "node-a"));
  indexer.replace({make_pod("ns", "new1", "5", "node-b"), make_pod("other", "new2", "5", "node-b"),
                   make_pod("ns", "new1", "6", "node-c")},
                  "6");
  CHECK(indexer.size() == 2);
  CHECK(indexer.get_by_key("ns/old") == nullptr);
  CHECK(indexer.get_by_key("ns/new1")->metadata.resource_version == "6");  // last duplicate wins
  CHECK(indexer.index_keys("spec.nodeName", "node-a").empty());
  CHECK(indexer.index_keys("spec.nodeName", "node-b") == std::vector<std::string>{"other/new2"});
  CHECK(indexer.index_keys("spec.nodeName", "node-c") == std::vector<std::string>{"ns/new1"});
  CHECK(indexer.last_replace_resource_version() == "6");
}

TEST_CASE("add_indexers indexes what is already stored and refuses a duplicate name") {
  Indexer<TestPod> indexer;
  indexer.add(make_pod("ns", "p1", "1", "node-a", {{"app", "web"}}));
  indexer.add(make_pod("ns", "p2", "1", "node-b", {{"app", "db"}}));
  indexer.add_indexers({{"app", label_index_func<TestPod>("app")}});
  CHECK(indexer.index_keys("app", "web") == std::vector<std::string>{"ns/p1"});
  CHECK_THROWS_WITH_AS(indexer.add_indexers({{"app", label_index_func<TestPod>("x")}}),
                       doctest::Contains("already registered"), std::invalid_argument);
  CHECK(indexer.has_index("app"));
}

TEST_CASE("index returns the objects sharing an index value with a given object") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.add(make_pod("ns", "p1", "1", "node-a"));
  indexer.add(make_pod("ns", "p2", "1", "node-a"));
  indexer.add(make_pod("ns", "p3", "1", "node-b"));
  TestPod probe = *make_pod("x", "y", "1", "node-a");
  CHECK(names(indexer.index("spec.nodeName", probe)) == std::vector<std::string>{"p1", "p2"});
}

TEST_CASE("index returns an object once, ordered by key, however many values it shares") {
  auto indexers = default_indexers<TestPod>();
  // Two values per pod: its node and its namespace.
  indexers.emplace("where", [](const TestPod& p) {
    return std::vector<std::string>{std::string(p.node_name), std::string(p.metadata.namespace_)};
  });
  Indexer<TestPod> indexer(std::move(indexers));
  indexer.add(make_pod("ns", "p2", "1", "node-a"));
  indexer.add(make_pod("other", "p1", "1", "node-a"));
  indexer.add(make_pod("ns", "p3", "1", "node-b"));
  indexer.add(make_pod("other", "p4", "1", "node-c"));
  TestPod probe = *make_pod("ns", "probe", "1", "node-a");
  // ns/p2 matches both values, once; keys sorted: ns/p2, ns/p3, other/p1.
  CHECK(names(indexer.index("where", probe)) == std::vector<std::string>{"p2", "p3", "p1"});
}

TEST_CASE("after replace and reserve, writes keep every index in step") {
  Indexer<TestPod> indexer(with_node_index());
  indexer.replace({make_pod("ns", "a", "1", "node-a"), make_pod("ns", "b", "1", "node-a")}, "1");
  indexer.reserve(1000);  // grows the store's table: the indexes must still find the entries
  indexer.add(make_pod("ns", "c", "2", "node-b"));
  indexer.update(make_pod("ns", "a", "3", "node-b"));
  CHECK(indexer.remove("ns/b") != nullptr);
  CHECK(indexer.size() == 2);
  CHECK(indexer.index_keys("spec.nodeName", "node-a").empty());
  CHECK(indexer.index_keys("spec.nodeName", "node-b") == std::vector<std::string>{"ns/a", "ns/c"});
  CHECK(names(indexer.by_index(kNamespaceIndex, "ns")) == std::vector<std::string>{"a", "c"});
  CHECK(indexer.by_index("spec.nodeName", "node-b").front()->metadata.resource_version == "3");
  indexer.reserve(0);  // never shrinks
  CHECK(indexer.list_index_func_values("spec.nodeName") == std::vector<std::string>{"node-b"});
}

TEST_CASE("controller_uid_index_func indexes by the controlling owner") {
  Indexer<TestPod> indexer;
  indexer.add_indexers({{"owner", &controller_uid_index_func<TestPod>}});
  auto pod = std::make_shared<TestPod>(*make_pod("ns", "p1", "1"));
  pod->metadata.owner_references = {{"apps/v1", "ReplicaSet", "rs", "uid-9", true, true}};
  indexer.add(pod);
  indexer.add(make_pod("ns", "orphan", "1"));
  CHECK(indexer.index_keys("owner", "uid-9") == std::vector<std::string>{"ns/p1"});
}

TEST_CASE("an unknown index is a clear error naming the registered ones") {
  Indexer<TestPod> indexer;
  CHECK_THROWS_WITH_AS(indexer.by_index("spec.nodeName", "a"),
                       doctest::Contains("registered indexes: namespace"), std::invalid_argument);
}

TEST_CASE("a throwing index function leaves the store unchanged") {
  auto indexers = default_indexers<TestPod>();
  indexers.emplace("picky", [](const TestPod& p) -> std::vector<std::string> {
    if (p.node_name == "bad") throw std::runtime_error("cannot index");
    return {p.node_name};
  });
  Indexer<TestPod> indexer(std::move(indexers));
  indexer.add(make_pod("ns", "p1", "1", "good"));
  CHECK_THROWS_AS(indexer.update(make_pod("ns", "p1", "2", "bad")), std::runtime_error);
  CHECK(indexer.get_by_key("ns/p1")->metadata.resource_version == "1");
  CHECK(indexer.index_keys("picky", "good") == std::vector<std::string>{"ns/p1"});
  // A new key too: no entry is left behind.
  CHECK_THROWS_AS(indexer.add(make_pod("ns", "p2", "3", "bad")), std::runtime_error);
  CHECK(indexer.get_by_key("ns/p2") == nullptr);
  CHECK(indexer.size() == 1);
  CHECK(indexer.list_keys() == std::vector<std::string>{"ns/p1"});
}

TEST_CASE("bad objects are refused with a clear error") {
  Indexer<TestPod> indexer;
  CHECK_THROWS_WITH_AS(indexer.add(nullptr), doctest::Contains("null object"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(indexer.add(make_pod("ns", "", "1")), doctest::Contains("metadata.name"),
                       std::invalid_argument);
}

TEST_CASE("the transform runs before storing and its result is what readers see") {
  TransformFunc<TestPod> drop_annotations = [](const PodPtr& pod) -> PodPtr {
    auto copy = std::make_shared<TestPod>(*pod);
    copy->metadata.annotations.clear();
    return copy;
  };
  Indexer<TestPod> indexer(default_indexers<TestPod>(), drop_annotations);
  auto pod = std::make_shared<TestPod>(*make_pod("ns", "p1", "1"));
  pod->metadata.annotations.emplace("big", std::string(1000, 'x'));
  auto stored = indexer.add(pod);
  CHECK(stored != pod);
  CHECK(stored->metadata.annotations.empty());
  CHECK(indexer.get_by_key("ns/p1") == stored);
  indexer.replace({pod}, "2");
  CHECK(indexer.get_by_key("ns/p1")->metadata.annotations.empty());
}

// The typed projections of client/model are KubeObjects as they are.
static_assert(KubeObject<rg::client::Pod>);
static_assert(KubeObject<rg::client::Node>);
static_assert(KubeObject<rg::client::Deployment>);

TEST_CASE("the spec.nodeName index over client/model's Pod is a one-liner") {
  using rg::client::Pod;
  Indexer<Pod> pods;
  pods.add_indexers(
      {{"spec.nodeName", index_by<Pod>([](const Pod& p) { return p.spec.node_name; })}});
  auto pod = std::make_shared<Pod>();
  pod->metadata.namespace_ = "shop";
  pod->metadata.name = "web-0";
  pod->spec.node_name = "node-a";
  pods.add(pod);
  CHECK(pods.index_keys("spec.nodeName", "node-a") == std::vector<std::string>{"shop/web-0"});
}
