// The informer machinery over Unstructured (any resource): the metadata accessors agree with the
// typed ones on the same JSON, and the Indexer's indexes, listers, process_deltas (resyncs told
// apart by resourceVersion) and the DeltaFIFO's relist tombstones work on unstructured objects.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "client/labels/label_selector.hpp"
#include "client/model/pod.hpp"
#include "informer/delta_fifo.hpp"
#include "informer/detail/handle_deltas.hpp"
#include "informer/dynamic_informer_factory.hpp"
#include "informer/indexer.hpp"
#include "informer/lister.hpp"
#include "test/informer/run_coro.hpp"

using namespace rg::informer;
using rg::client::Unstructured;
using rg::informer::detail::process_deltas;

namespace {

using ObjectPtr = std::shared_ptr<const Unstructured>;

constexpr std::string_view kWidget = R"({
  "apiVersion": "example.com/v1", "kind": "Widget",
  "metadata": {"name": "w1", "namespace": "shop", "uid": "u-1", "resourceVersion": "7",
               "labels": {"app": "web", "tier": "front"},
               "annotations": {"note": "x"},
               "ownerReferences": [
                 {"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u-a"},
                 "not an object",
                 {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "u-d",
                  "controller": true, "blockOwnerDeletion": true}]},
  "spec": {"size": 3}
})";

ObjectPtr widget(std::string_view ns, std::string_view name, std::string_view rv,
                 std::string_view app = "web", std::string_view owner_uid = "") {
  boost::json::object metadata{{"name", name}, {"resourceVersion", rv}};
  if (!ns.empty()) metadata["namespace"] = ns;
  metadata["labels"] = boost::json::object{{"app", app}};
  if (!owner_uid.empty()) {
    metadata["ownerReferences"] = boost::json::array{
        boost::json::object{{"uid", owner_uid}, {"controller", true}, {"name", "o"}}};
  }
  return std::make_shared<const Unstructured>(boost::json::object{
      {"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", std::move(metadata)}});
}

std::vector<std::string> keys(std::vector<ObjectPtr> objects) {
  std::vector<std::string> out;
  for (const auto& object : objects) out.push_back(meta_namespace_key(*object));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

static_assert(KubeObject<Unstructured>);
static_assert(KubeObject<rg::client::Pod>);
static_assert(!KubeObject<int>);

TEST_CASE("unstructured and typed metadata accessors read the same object alike") {
  const Unstructured object = Unstructured::parse(kWidget);
  Unstructured wellformed = object;  // the typed decode is strict: drop the malformed owner
  auto& owners = wellformed.object()["metadata"].as_object()["ownerReferences"].as_array();
  owners.erase(owners.begin() + 1);
  rg::client::Pod pod;
  pod.metadata = wellformed.metadata();
  SUBCASE("name, namespace, uid, resourceVersion") {
    CHECK(meta::name(object) == "w1");
    CHECK(meta::namespace_(object) == "shop");
    CHECK(meta::uid(object) == "u-1");
    CHECK(meta::resource_version(object) == "7");
    CHECK(meta::name(pod) == meta::name(object));
    CHECK(meta::namespace_(pod) == meta::namespace_(object));
    CHECK(meta::uid(pod) == meta::uid(object));
    CHECK(meta::resource_version(pod) == meta::resource_version(object));
    CHECK(meta_namespace_key(object) == "shop/w1");
    CHECK(meta_namespace_key(pod) == "shop/w1");
  }
  SUBCASE("labels and annotations") {
    CHECK(meta::labels(object) == meta::labels(pod));
    CHECK(meta::labels(object).at("tier") == "front");
    CHECK(meta::annotation(object, "note") == "x");
    CHECK(meta::annotation(pod, "note") == "x");
    CHECK_FALSE(meta::annotation(object, "missing"));
    CHECK_FALSE(meta::annotation(pod, "missing"));
  }
  SUBCASE("ownerReferences: malformed entries skipped, the controller found") {
    const auto owners = meta::owner_references(object);
    REQUIRE(owners.size() == 2);
    CHECK(owners[0].kind == "ConfigMap");
    CHECK_FALSE(owners[0].controller);
    CHECK(owners[1].name == "d");
    CHECK(owners[1].controller);
    CHECK(owners[1].block_owner_deletion);
    CHECK(meta::controller_uid(object) == "u-d");
    CHECK(meta::controller_uid(pod) == "u-d");
    CHECK(meta::owner_references(pod).size() == 2);
  }
}

TEST_CASE("Indexer and listers over Unstructured: namespace, label and controller indexes") {
  Indexers<Unstructured> indexers = default_indexers<Unstructured>();
  indexers.emplace("app", label_index_func<Unstructured>("app"));
  indexers.emplace("owner", &controller_uid_index_func<Unstructured>);
  Indexer<Unstructured> indexer(std::move(indexers));
  indexer.add(widget("shop", "a", "1", "web", "d-1"));
  indexer.add(widget("shop", "b", "2", "db"));
  indexer.add(widget("other", "c", "3", "web", "d-1"));
  indexer.add(widget("", "cluster-wide", "4", "web"));

  CHECK(keys(indexer.by_index(kNamespaceIndex, "shop")) ==
        std::vector<std::string>{"shop/a", "shop/b"});
  CHECK(keys(indexer.by_index("app", "web")) ==
        std::vector<std::string>{"cluster-wide", "other/c", "shop/a"});
  CHECK(keys(indexer.by_index("owner", "d-1")) == std::vector<std::string>{"other/c", "shop/a"});

  Lister<Unstructured> lister(indexer);
  CHECK(keys(lister.list(rg::client::LabelSelector::parse("app=web"))) ==
        std::vector<std::string>{"cluster-wide", "other/c", "shop/a"});
  CHECK(keys(lister.namespace_("shop").list(rg::client::LabelSelector::parse("app!=web"))) ==
        std::vector<std::string>{"shop/b"});
  REQUIRE(lister.get("cluster-wide"));
  CHECK(meta::resource_version(*lister.get("cluster-wide")) == "4");
  CHECK(lister.namespace_("shop").get("a"));
  CHECK_FALSE(lister.namespace_("shop").get("c"));

  indexer.update(widget("shop", "a", "5", "db"));  // the label and the owner changed
  CHECK(keys(indexer.by_index("app", "web")) ==
        std::vector<std::string>{"cluster-wide", "other/c"});
  CHECK(keys(indexer.by_index("owner", "d-1")) == std::vector<std::string>{"other/c"});

  CHECK_THROWS_WITH_AS(indexer.add(std::make_shared<const Unstructured>()),
                       doctest::Contains("no metadata.name"), std::invalid_argument);
}

TEST_CASE("process_deltas over Unstructured: a resync is an update with the same resourceVersion") {
  Indexer<Unstructured> cache;
  struct Handler {
    std::vector<std::string> log;
    void on_add(const ObjectPtr& object, bool) {
      log.push_back("add " + std::string(meta::resource_version(*object)));
    }
    void on_update(const ObjectPtr& old_object, const ObjectPtr& new_object) {
      const bool resync =
          meta::resource_version(*old_object) == meta::resource_version(*new_object);
      log.push_back(std::string(resync ? "resync " : "update ") +
                    std::string(meta::resource_version(*new_object)));
    }
    void on_delete(const ObjectOrTombstone<Unstructured>& object) {
      log.push_back("delete " + key_of<Unstructured>(object));
    }
  } handler;
  const auto first = widget("shop", "a", "1");
  process_deltas(handler, cache,
                 Deltas<Unstructured>{{DeltaType::kAdded, first},
                                      {DeltaType::kSync, first},
                                      {DeltaType::kUpdated, widget("shop", "a", "2")},
                                      {DeltaType::kDeleted, widget("shop", "a", "2")}},
                 false);
  CHECK(handler.log == std::vector<std::string>{"add 1", "resync 1", "update 2", "delete shop/a"});
  CHECK(cache.list().empty());
}

TEST_CASE("DeltaFIFO over Unstructured: a relist missing a cached object queues its tombstone") {
  Indexer<Unstructured> cache;
  cache.add(widget("shop", "gone", "1"));
  DeltaFIFO<Unstructured> fifo({.capacity = 10, .known_objects = &cache});
  std::vector<std::string> popped;
  boost::asio::io_context io;
  test::run_coro(io, [&]() -> boost::asio::awaitable<void> {
    std::vector<ObjectPtr> list{widget("shop", "kept", "2")};
    co_await fifo.replace(std::move(list), "2");
    auto record = [&](Deltas<Unstructured>&& deltas, bool) {
      for (auto& delta : deltas) {
        popped.push_back(std::string(to_string(delta.type)) + " " +
                         key_of<Unstructured>(delta.object) +
                         (is_tombstone<Unstructured>(delta.object) ? " tombstone" : ""));
      }
    };
    co_await fifo.pop(record);
    co_await fifo.pop(record);
  }());
  std::sort(popped.begin(), popped.end());
  CHECK(popped == std::vector<std::string>{"Deleted shop/gone tombstone", "Replaced shop/kept"});
}

TEST_CASE("drop_managed_fields stores a copy without metadata.managedFields, others as they are") {
  auto with = std::make_shared<const Unstructured>(Unstructured::parse(
      R"({"metadata":{"name":"a","managedFields":[{"manager":"kubectl"}]},"spec":{"x":1}})"));
  const auto dropped = drop_managed_fields(with);
  CHECK(dropped != with);
  CHECK(dropped->serialize() == R"({"metadata":{"name":"a"},"spec":{"x":1}})");
  CHECK(with->object().at("metadata").as_object().contains("managedFields"));  // not mutated
  auto without =
      std::make_shared<const Unstructured>(Unstructured::parse(R"({"metadata":{"name":"b"}})"));
  CHECK(drop_managed_fields(without) == without);
}
