// Dynamic informers (Unstructured, any resource) against kube-sim: a CustomResourceDefinition
// created at run time, its objects informed through a paginated LIST or a streaming list, then
// watched (adds, updates, deletes, bookmarks), a relist after 410, a cluster-scoped custom
// resource, and one shared informer per resource and selectors from the factory.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>

#include "informer/consistency_checker.hpp"
#include "informer/dynamic_informer_factory.hpp"
#include "test/informer_e2e/custom_resources.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {

TEST_CASE("a dynamic informer follows a custom resource whose definition is created at run time") {
  bool watch_list = false;
  SUBCASE("paginated LIST") {}
  SUBCASE("streaming list") { watch_list = true; }
  Fixture f;
  Writer writer(f);
  seed_widgets(writer, 25);
  const auto in_default = kWidgets.in("default");
  const auto in_system = kWidgets.in("kube-system");

  auto observer = std::make_shared<CountingObserver>();
  DynamicSharedInformerFactory factory(f.client, dynamic_factory_options(watch_list, observer));
  DynamicInformer& widgets = factory.for_resource(kWidgets);
  CHECK(&widgets == &factory.for_resource(kWidgets));  // shared
  CHECK(widgets.name() == "widgets.example.com");
  Heard<client::Unstructured> heard;
  widgets.add_event_handler("heard", heard.handler());
  factory.start(f.io.get_executor());

  REQUIRE(f.run_until([&] { return widgets.has_synced(); }));
  CHECK(cache_state(widgets.indexer()) == f.server_state(kWidgets));
  CHECK(widgets.lister().namespace_("default").list().size() == 13);
  const auto w3 = widgets.lister().namespace_("kube-system").get("w-3");
  REQUIRE(w3);
  CHECK(w3->kind() == "Widget");
  CHECK(size_of(*w3) == 3);
  if (watch_list) {
    CHECK(f.sim.watch_list_requests() >= 1);
    CHECK(observer->lists == 0);
  } else {
    CHECK(observer->lists >= 3);  // 25 objects in pages of 10
  }
  REQUIRE(f.run_until([&] { return heard.adds == 25; }));

  SUBCASE("watch events and bookmarks") {
    writer.create(in_default, "Widget", "late", 1);
    writer.resize(in_default, "late", 7);
    writer.remove(in_system, "w-1");
    REQUIRE(f.run_until([&] { return heard.deletes == 1 && heard.last_size == 7; }));
    CHECK(heard.adds == 26);
    CHECK(widgets.lister().namespace_("default").get("late"));
    CHECK_FALSE(widgets.lister().namespace_("kube-system").get("w-1"));
    REQUIRE(f.run_until([&] { return observer->bookmarks > 0; }));
  }
  SUBCASE("410 after compaction: a relist brings the cache back in step") {
    writer.resize(in_default, "w-0", 100);
    f.sim.faults().compact();
    writer.resize(in_default, "w-2", 102);
    writer.remove(in_default, "w-4");
    f.sim.faults().drop_watches();
    REQUIRE(f.run_until([&] {
      return heard.deletes == 1 && cache_state(widgets.indexer()) == f.server_state(kWidgets);
    }));
    CHECK(size_of(*widgets.lister().namespace_("default").get("w-2")) == 102);
  }
  f.await(factory.shutdown());
}

TEST_CASE("dynamic informers: a cluster-scoped custom resource, selectors, a namespace") {
  Fixture f;
  Writer writer(f);
  writer.create_definition("gadget", "Gadget", false);
  writer.create_definition("widget", "Widget", true);
  for (int i = 0; i < 5; ++i) writer.create(kGadgets, "Gadget", "g-" + std::to_string(i), i);
  writer.create(kWidgets.in("default"), "Widget", "here", 1);
  writer.create(kWidgets.in("kube-system"), "Widget", "elsewhere", 2);

  auto observer = std::make_shared<CountingObserver>();
  auto options = dynamic_factory_options(false, observer);
  options.namespace_ = "default";
  DynamicSharedInformerFactory factory(f.client, options);
  DynamicInformer& gadgets = factory.for_resource(kGadgets);  // cluster-scoped: no namespace
  DynamicInformer& widgets = factory.for_resource(kWidgets);  // the factory's namespace
  DynamicInformer& named = factory.for_resource(kWidgets, "", [](DynamicInformer::Options& o) {
    o.scope.field_selector = "metadata.name=here";
    o.transform = drop_managed_fields;
  });
  CHECK(&named != &widgets);
  factory.start(f.io.get_executor());
  REQUIRE(f.run_until(
      [&] { return gadgets.has_synced() && widgets.has_synced() && named.has_synced(); }));

  CHECK(cache_state(gadgets.indexer()) == f.server_state(kGadgets));
  REQUIRE(gadgets.lister().get("g-4"));
  CHECK(meta::namespace_(*gadgets.lister().get("g-4")).empty());
  CHECK(gadgets.indexer().list_keys().size() == 5);
  CHECK(widgets.indexer().list_keys() == std::vector<std::string>{"default/here"});
  CHECK(named.indexer().list_keys() == std::vector<std::string>{"default/here"});
  const auto here = named.lister().namespace_("default").get("here");
  REQUIRE(here);
  CHECK_FALSE(here->object().at("metadata").as_object().contains("managedFields"));
  f.await(factory.shutdown());
}

}  // namespace rg::informer::e2e
