// Listers: label selection over the whole cache and within one namespace, and get by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "client/labels/label_selector.hpp"
#include "informer/indexer.hpp"
#include "informer/lister.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;

namespace {

/// A stand-in for client/labels' LabelSelector: equality on one label.
struct Equals {
  std::string key, value;
  bool matches(const rg::client::Labels& labels) const {
    auto it = labels.find(key);
    return it != labels.end() && it->second == value;
  }
};

std::vector<std::string> keys(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& pod : pods) out.push_back(meta_namespace_key(*pod));
  std::sort(out.begin(), out.end());
  return out;
}

void fill(Indexer<TestPod>& indexer) {
  indexer.add(make_pod("a", "web-1", "1", "", {{"app", "web"}}));
  indexer.add(make_pod("a", "db-1", "1", "", {{"app", "db"}}));
  indexer.add(make_pod("b", "web-2", "1", "", {{"app", "web"}}));
}

}  // namespace

static_assert(LabelMatcher<Equals>);
static_assert(LabelMatcher<Everything>);
static_assert(!LabelMatcher<int>);
static_assert(LabelMatcher<rg::client::LabelSelector>);

TEST_CASE("client/labels' LabelSelector plugs straight in") {
  Indexer<TestPod> indexer;
  fill(indexer);
  Lister<TestPod> lister(indexer);
  auto selector = rg::client::LabelSelector::parse("app in (web, cache)");
  CHECK(keys(lister.list(selector)) == std::vector<std::string>{"a/web-1", "b/web-2"});
  CHECK(keys(lister.namespace_("a").list(rg::client::LabelSelector::parse("app!=web"))) ==
        std::vector<std::string>{"a/db-1"});
}

TEST_CASE("list with a selector, across namespaces") {
  Indexer<TestPod> indexer;
  fill(indexer);
  Lister<TestPod> lister(indexer);
  CHECK(keys(lister.list()) == std::vector<std::string>{"a/db-1", "a/web-1", "b/web-2"});
  CHECK(keys(lister.list(Equals{"app", "web"})) == std::vector<std::string>{"a/web-1", "b/web-2"});
  auto has_app = [](const rg::client::Labels& labels) { return labels.contains("app"); };
  CHECK(lister.list(has_app).size() == 3);
}

TEST_CASE("a namespace lister sees only its namespace") {
  Indexer<TestPod> indexer;
  fill(indexer);
  Lister<TestPod> lister(indexer);
  CHECK(keys(lister.namespace_("a").list()) == std::vector<std::string>{"a/db-1", "a/web-1"});
  CHECK(keys(lister.namespace_("a").list(Equals{"app", "web"})) ==
        std::vector<std::string>{"a/web-1"});
  CHECK(lister.namespace_("a").get("web-1")->metadata.namespace_ == "a");
  CHECK(lister.namespace_("b").get("web-1") == nullptr);
  CHECK(lister.namespace_("none").list().empty());
}

TEST_CASE("a namespace lister works without the namespace index") {
  Indexer<TestPod> indexer(Indexers<TestPod>{});
  fill(indexer);
  Lister<TestPod> lister(indexer);
  CHECK(keys(lister.namespace_("b").list()) == std::vector<std::string>{"b/web-2"});
}

TEST_CASE("cluster-scoped objects are got by bare name") {
  Indexer<TestNode> indexer;
  auto node = std::make_shared<TestNode>();
  node->metadata.name = "node-a";
  indexer.add(node);
  Lister<TestNode> lister(indexer);
  CHECK(lister.get("node-a") == node);
  CHECK(lister.get("node-b") == nullptr);
}
