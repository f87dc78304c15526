// ObjectIndex: key order as etcd's, copies that never change, ranges by namespace, and ranks,
// checked against std::map over random operations.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "sim/object_index.hpp"
#include "sim/resource_table.hpp"

namespace {

using rg::sim::ObjectIndex;
using rg::sim::ObjectPtr;
using rg::sim::ObjectRange;

const rg::sim::ResourceType& pods() {
  return *rg::sim::ResourceTable::builtin().find("", "v1", "pods");
}

ObjectPtr stored_pod(const std::string& ns, const std::string& name, int generation = 0) {
  boost::json::object object;
  object["metadata"] = {{"namespace", ns}, {"name", name}, {"generation", generation}};
  return rg::sim::make_stored_object(pods(), object);
}

std::vector<std::string> keys(const ObjectRange& range) {
  std::vector<std::string> out;
  for (const auto& object : range) out.push_back(object->key());
  return out;
}

}  // namespace

TEST_CASE("compare_key orders as the concatenated key does") {
  auto object = stored_pod("a", "b");
  const std::string self = "a/b";
  const std::vector<std::string> others = {
      "a/b", "a-x/c", "a/a", "a/c", "a", "a0", "", std::string("a/b\0", 4), "b", "a/", "a.b"};
  for (const auto& key : others)
    CHECK(rg::sim::compare_key(*object, key) == (self > key) - (self < key));
}

TEST_CASE("a copy keeps its state while the original changes") {
  ObjectIndex index;
  index.insert(stored_pod("ns", "a"));
  index.insert(stored_pod("ns", "b"));
  const ObjectIndex before = index;
  index.insert(stored_pod("ns", "c"));
  index.erase("ns/a");
  index.insert(stored_pod("ns", "b", 7));
  CHECK(keys({before, ""}) == std::vector<std::string>{"ns/a", "ns/b"});
  CHECK(keys({index, ""}) == std::vector<std::string>{"ns/b", "ns/c"});
  CHECK(before.find("ns/b")->body != index.find("ns/b")->body);
  CHECK(before.size() == 2);
  CHECK(index.find("ns/a") == nullptr);
  index.erase("ns/absent");
  CHECK(index.size() == 2);
}

TEST_CASE("ranges select one namespace, even beside namespaces sharing its prefix") {
  ObjectIndex index;
  for (std::string ns : {"a", "a-b", "a.b", "ab", "b"})
    for (std::string name : {"x", "y"}) index.insert(stored_pod(ns, name));
  ObjectRange a{index, "a"};
  CHECK(keys(a) == std::vector<std::string>{"a/x", "a/y"});
  CHECK(a.size() == 2);
  CHECK(keys({index, "a-b"}) == std::vector<std::string>{"a-b/x", "a-b/y"});
  CHECK(ObjectRange{index, "none"}.empty());
  CHECK(ObjectRange{index, "none"}.size() == 0);
  ObjectRange all{index, ""};
  CHECK(all.size() == 10);
  CHECK(keys(all).front() == "a-b/x");  // '-' sorts before '.', '/' and letters
  auto second = a.from(std::string("a/x") + '\0');
  REQUIRE(second != a.end());
  CHECK((*second)->key() == "a/y");
  CHECK(a.count_from(second) == 1);
  CHECK(a.count_from(a.end()) == 0);
}

TEST_CASE("random inserts, replacements and erases match std::map, with snapshots intact") {
  std::mt19937 random(42);
  ObjectIndex index;
  std::map<std::string, int> model;
  std::vector<std::pair<ObjectIndex, std::map<std::string, int>>> snapshots;
  for (int step = 0; step < 4000; ++step) {
    const std::string ns = "ns" + std::to_string(random() % 4);
    const std::string name = "p" + std::to_string(random() % 300);
    const std::string key = ns + "/" + name;
    if (random() % 3 == 0) {
      index.erase(key);
      model.erase(key);
    } else {
      index.insert(stored_pod(ns, name, step));
      model[key] = step;
    }
    if (step % 500 == 0) snapshots.emplace_back(index, model);
  }
  snapshots.emplace_back(index, model);
  for (const auto& [snapshot, expected] : snapshots) {
    REQUIRE(snapshot.size() == expected.size());
    auto it = expected.begin();
    for (const auto& object : ObjectRange{snapshot, ""}) {
      REQUIRE(it != expected.end());
      CHECK(object->key() == it->first);
      CHECK(boost::json::parse(object->body).at("metadata").at("generation") == it->second);
      ++it;
    }
    CHECK(it == expected.end());
    const std::string probe = "ns2/p150";
    CHECK(snapshot.rank(probe) ==
          static_cast<std::size_t>(std::distance(expected.begin(), expected.lower_bound(probe))));
  }
}
