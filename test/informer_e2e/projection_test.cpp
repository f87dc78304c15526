// Dynamic informers caching a user type projected from Unstructured (informer/projection.hpp)
// against kube-sim: a custom resource listed in pages or by a streaming list, watched (adds,
// updates, deletes), relisted after 410 -- and objects the projection refuses (a spec.size that is
// not a number), which are counted and never cached, whether they arrive in a LIST or a watch
// event. Each sequence ends with the cache equal to a fresh LIST projected by the same function.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "informer/dynamic_informer_factory.hpp"
#include "informer/lean_meta.hpp"
#include "test/informer_e2e/custom_resources.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {

// What the program keeps of a Widget: its metadata for the cache, and spec.size. (Not in an
// anonymous namespace: the informer's coroutine frames would have members without linkage.)
struct WidgetSize : LeanMeta {
  std::int64_t size = 0;
};

inline std::int64_t size_of(const WidgetSize& widget) { return widget.size; }

namespace {

WidgetSize widget_size(const client::Unstructured& object) {
  const std::int64_t size = size_of(object);
  if (size < 0) throw std::invalid_argument("spec.size is not a non-negative integer");
  return {LeanMeta(object), size};
}

// key -> "resourceVersion size", of the cache or of a projected LIST.
using Projection = std::map<std::string, std::string>;

std::string entry(const WidgetSize& widget) {
  return std::string(widget.resource_version()) + " " + std::to_string(widget.size);
}

Projection cached(const ProjectingInformer<WidgetSize>& informer) {
  Projection out;
  for (const auto& widget : informer.indexer().list()) {
    out[meta_namespace_key(*widget)] = entry(*widget);
  }
  return out;
}

// A fresh LIST of widgets in all namespaces, projected by widget_size (refused objects left out).
Projection server_projection(Fixture& f) {
  auto list = [&f]() -> boost::asio::awaitable<json::value> {
    const client::ListOptions options;
    co_return co_await f.client.list(kWidgets, options);
  };
  const json::value page = f.await(list());
  Projection out;
  const ProjectFunc<WidgetSize, client::Unstructured> project = widget_size;
  for (const auto& item : page.at("items").as_array()) {
    const client::Unstructured object(item.as_object());
    if (auto projected = project_object(project, object); projected.object) {
      out[meta_namespace_key(*projected.object)] = entry(*projected.object);
    }
  }
  return out;
}

void create_unsized(Fixture& f, const client::ResourceRef& resource, const std::string& name) {
  json::value object =
      json::object{{"apiVersion", "example.com/v1"},
                   {"kind", "Widget"},
                   {"metadata", json::object{{"name", name}, {"namespace", resource.namespace_}}},
                   {"spec", json::object{{"size", "big"}}}};
  f.await(detail::create(f.client, resource, std::move(object)));
}

void make_unsized(Fixture& f, const client::ResourceRef& resource, const std::string& name) {
  f.await(detail::merge_patch(f.client, resource, name, R"({"spec":{"size":"big"}})"));
}

}  // namespace

TEST_CASE("a dynamic informer caches a projected user type; refused objects are never cached") {
  bool watch_list = false;
  SUBCASE("paginated LIST") {}
  SUBCASE("streaming list") { watch_list = true; }
  Fixture f;
  Writer writer(f);
  seed_widgets(writer, 25);
  const auto in_default = kWidgets.in("default");
  const auto in_system = kWidgets.in("kube-system");
  create_unsized(f, in_default, "unsized-0");
  create_unsized(f, in_system, "unsized-1");

  auto observer = std::make_shared<CountingObserver>();
  DynamicSharedInformerFactory factory(f.client, dynamic_factory_options(watch_list, observer));
  auto& widgets = factory.for_resource<WidgetSize>(kWidgets, widget_size);
  CHECK(&widgets == &factory.for_resource<WidgetSize>(kWidgets, widget_size));  // shared
  CHECK(static_cast<void*>(&widgets) != static_cast<void*>(&factory.for_resource(kWidgets)));
  Heard<WidgetSize> heard;
  widgets.add_event_handler("heard", heard.handler());
  factory.start(f.io.get_executor());

  REQUIRE(f.run_until([&] { return widgets.has_synced(); }));
  CHECK(widgets.projection_failures() == 2);
  CHECK(widgets.indexer().list_keys().size() == 25);
  CHECK(cached(widgets) == server_projection(f));
  CHECK(widgets.lister().namespace_("kube-system").get("w-3")->size == 3);
  CHECK_FALSE(widgets.lister().namespace_("default").get("unsized-0"));
  if (watch_list) {
    CHECK(f.sim.watch_list_requests() >= 1);
  } else {
    CHECK(observer->lists >= 3);  // 27 objects in pages of 10
  }
  REQUIRE(f.run_until([&] { return heard.adds == 25; }));

  SUBCASE("watch: add, update, delete; a refused update forgets the key, a good one restores it") {
    writer.create(in_default, "Widget", "late", 1);
    writer.resize(in_default, "late", 7);
    writer.remove(in_system, "w-1");
    make_unsized(f, in_default, "w-2");  // cached before: leaves the cache (a tombstone)
    REQUIRE(
        f.run_until([&] { return heard.deletes == 2 && cached(widgets) == server_projection(f); }));
    CHECK(widgets.lister().namespace_("default").get("late")->size == 7);
    CHECK_FALSE(widgets.lister().namespace_("default").get("w-2"));
    CHECK(widgets.projection_failures() == 3);
    writer.resize(in_default, "w-2", 22);
    writer.resize(in_default, "unsized-0", 5);  // never cached: now it is
    REQUIRE(f.run_until([&] {
      return widgets.lister().namespace_("default").get("unsized-0") != nullptr &&
             cached(widgets) == server_projection(f);
    }));
    CHECK(widgets.lister().namespace_("default").get("w-2")->size == 22);
  }
  SUBCASE("410 after compaction: the relist's cache equals the projected LIST") {
    writer.resize(in_default, "w-0", 100);
    f.sim.faults().compact();
    writer.resize(in_system, "unsized-1", 11);  // refused before, projectable now
    make_unsized(f, in_default, "w-4");         // projectable before, refused now
    writer.remove(in_default, "w-6");
    f.sim.faults().drop_watches();
    REQUIRE(f.run_until([&] {
      return widgets.lister().namespace_("kube-system").get("unsized-1") != nullptr &&
             cached(widgets) == server_projection(f);
    }));
    CHECK_FALSE(widgets.lister().namespace_("default").get("w-4"));
    CHECK_FALSE(widgets.lister().namespace_("default").get("w-6"));
    CHECK(widgets.lister().namespace_("default").get("w-0")->size == 100);
  }
  f.await(factory.shutdown());
}

}  // namespace rg::informer::e2e
