// Projections (informer/projection.hpp): a user function making the cached type from a decoded
// Unstructured; what a refusal does in the state machine (the key is forgotten, the
// resourceVersion moves on) and in the DeltaFIFO (a tombstone with the last known state).
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "client/model/unstructured.hpp"
#include "informer/delta_fifo.hpp"
#include "informer/indexer.hpp"
#include "informer/lean_meta.hpp"
#include "informer/projection.hpp"
#include "informer/reflector_state.hpp"
#include "test/informer/run_coro.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;
using rg::client::ObjectMeta;
using rg::client::Unstructured;

namespace {

struct WidgetSize {
  ObjectMeta metadata;
  std::int64_t size = 0;
};

WidgetSize widget_size(const Unstructured& object) {
  const auto& spec = object.object().at("spec").as_object();  // throws without a spec
  return {object.metadata(), spec.at("size").to_number<std::int64_t>()};
}

Unstructured widget(std::string_view spec) {
  return Unstructured::parse(std::string(R"({"apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w1", "namespace": "shop", "resourceVersion": "7",
                 "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
    "spec": )") + std::string(spec) +
                             "}");
}

const ProjectFunc<WidgetSize, Unstructured> kProject = widget_size;

}  // namespace

TEST_CASE("a projection keeps what the function copies, and the object's key and version") {
  const Projected<WidgetSize> projected = project_object(kProject, widget(R"({"size": 3})"));
  REQUIRE(projected.object);
  CHECK(projected.error.empty());
  CHECK(projected.object->size == 3);
  CHECK(meta_namespace_key(*projected.object) == "shop/w1");
  CHECK(meta::resource_version(*projected.object) == "7");
}

TEST_CASE("a projection that throws refuses the object, saying why") {
  const Projected<WidgetSize> projected = project_object(kProject, widget(R"({"color": "red"})"));
  CHECK_FALSE(projected.object);
  CHECK_FALSE(projected.error.empty());
}

TEST_CASE("a projection that loses the name, namespace or resourceVersion is refused") {
  const ProjectFunc<WidgetSize, Unstructured> no_version = [](const Unstructured& object) {
    WidgetSize out = widget_size(object);
    out.metadata.resource_version.clear();
    return out;
  };
  const Projected<WidgetSize> projected = project_object(no_version, widget(R"({"size": 1})"));
  CHECK_FALSE(projected.object);
  CHECK(projected.error.find("resourceVersion") != std::string::npos);
  const ProjectFunc<WidgetSize, Unstructured> no_meta = [](const Unstructured&) {
    return WidgetSize{};
  };
  CHECK_FALSE(project_object(no_meta, widget(R"({"size": 1})")).object);
}

TEST_CASE("state machine: a dropped event forgets its key and moves the resourceVersion on") {
  using namespace reflector;
  ReflectorStateMachine machine(
      {}, [] { return Clock::time_point{}; }, [] { return 0.0; });
  machine.step(Start{});
  machine.step(ListPage{{}, "100", ""});
  machine.step(WatchOpened{});
  const auto out = machine.step(WatchEvent{EventType::kDropped, nullptr, "105", false, "shop/w1"});
  REQUIRE(out.size() == 1);
  REQUIRE(std::holds_alternative<StoreForget>(out[0]));
  CHECK(std::get<StoreForget>(out[0]).key == "shop/w1");
  CHECK(machine.last_sync_resource_version() == "105");
}

TEST_CASE("state machine: a dropped initial event of a streaming list is left out of the list") {
  using namespace reflector;
  ReflectorStateMachine machine(
      {.use_watch_list = true}, [] { return Clock::time_point{}; }, [] { return 0.0; });
  machine.step(Start{});
  machine.step(WatchOpened{});
  CHECK(machine.step(WatchEvent{EventType::kAdded, std::make_shared<const int>(1), "10"}).empty());
  CHECK(machine.step(WatchEvent{EventType::kDropped, nullptr, "11", false, "shop/bad"}).empty());
  const auto out = machine.step(WatchEvent{EventType::kBookmark, nullptr, "20", true});
  REQUIRE(out.size() == 2);
  REQUIRE(std::holds_alternative<StoreReplace>(out[1]));
  CHECK(std::get<StoreReplace>(out[1]).objects.size() == 1);
}

TEST_CASE("DeltaFIFO::forget: a tombstone with the last known state; an unknown key is ignored") {
  boost::asio::io_context io;
  Indexer<TestPod> cache;
  cache.add(make_pod("ns", "cached", "1"));
  DeltaFIFO<TestPod> fifo({.known_objects = &cache});

  CHECK(run_coro(io, fifo.forget("ns/unknown")));
  CHECK(fifo.size() == 0);

  CHECK(run_coro(io, fifo.forget("ns/cached")));
  CHECK(run_coro(io, fifo.add(make_pod("ns", "queued", "5"))));
  CHECK(run_coro(io, fifo.forget("ns/queued")));
  REQUIRE(fifo.list_keys() == std::vector<std::string>{"ns/cached", "ns/queued"});

  const auto cached = fifo.get_by_key("ns/cached").value();
  REQUIRE(cached.size() == 1);
  CHECK(cached[0].type == DeltaType::kDeleted);
  REQUIRE(is_tombstone<TestPod>(cached[0].object));
  CHECK(object_of<TestPod>(cached[0].object)->metadata.resource_version == "1");

  const auto queued = fifo.get_by_key("ns/queued").value();
  REQUIRE(queued.size() == 2);
  CHECK(queued[1].type == DeltaType::kDeleted);
  CHECK(key_of<TestPod>(queued[1].object) == "ns/queued");
  CHECK(object_of<TestPod>(queued[1].object)->metadata.resource_version == "5");
}

namespace {

struct LeanWidget : LeanMeta {
  std::int64_t size = 0;
};

LeanWidget lean_widget(const Unstructured& object) {
  return {LeanMeta(object), object.object().at("spec").at("size").to_number<std::int64_t>()};
}

}  // namespace

TEST_CASE("a lean user type (LeanMeta) is cached, indexed and listed like any object") {
  static_assert(KubeObject<LeanWidget>);
  const ProjectFunc<LeanWidget, Unstructured> project = lean_widget;
  auto object = Unstructured::parse(R"({"apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w1", "namespace": "shop", "uid": "u1", "resourceVersion": "9",
                 "labels": {"app": "web"}, "annotations": {"note": "big"},
                 "ownerReferences": [{"uid": "o1", "name": "o", "controller": true}]},
    "spec": {"size": 4}})");
  const Projected<LeanWidget> projected = project_object(project, object);
  REQUIRE(projected.object);
  CHECK(projected.object->size == 4);
  CHECK(meta::uid(*projected.object) == "u1");
  CHECK(meta::controller_uid(*projected.object) == "o1");
  CHECK(meta::labels(*projected.object).at("app") == "web");
  CHECK_FALSE(meta::annotation(*projected.object, "note"));

  Indexer<LeanWidget> cache;
  cache.add(projected.object);
  CHECK(cache.by_index(kNamespaceIndex, "shop").size() == 1);
  CHECK(cache.get_by_key("shop/w1") == projected.object);
}
