// SharedIndexInformer against kube-sim without faults: the initial sync (paginated LIST and
// streaming list), every watch event reaching the cache and then the handlers, handlers added
// after start, and label-selector informers.
#include <doctest/doctest.h>

#include "test/informer_e2e/recorder.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

TEST_CASE("initial sync: every object of a paginated LIST reaches the cache and the handlers") {
  Fixture f;
  f.create_pods("default", 1200);
  f.create_pods("kube-system", 30);
  RunningInformer run(f, pod_informer_options());
  Recorder recorder(run.cache());
  auto listener = run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(f.run_until([&] { return run.informer.has_synced() && listener->has_synced(); }));
  CHECK(run.cache().size() == 1230);
  CHECK(recorder.adds.load() == 1230);
  CHECK(recorder.initial_adds.load() == 1230);
  CHECK(run.observer->lists == 3);  // pages of 500
  CHECK(run.observer->items == 1230);
  CHECK(recorder.cache_behind.load() == 0);
  CHECK(recorder.not_cached.load() == 0);
  CHECK(run.informer.status().health == reflector::Health::kHealthy);
  CHECK(run.informer.last_sync_resource_version() ==
        std::to_string(f.sim.store().resource_version()));
  run.require_consistent();
}

TEST_CASE("initial sync: a streaming list (sendInitialEvents) fills the cache in one request") {
  Fixture f;
  f.create_pods("default", 700);
  RunningInformer run(f, pod_informer_options("", true));
  Recorder recorder(run.cache());
  auto listener = run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(f.run_until([&] { return run.informer.has_synced() && listener->has_synced(); }));
  CHECK(run.cache().size() == 700);
  CHECK(recorder.initial_adds.load() == 700);
  CHECK(run.observer->lists == 0);
  CHECK(run.observer->items == 700);  // the initial events are the items received
  CHECK(f.sim.watch_list_requests() == 1);
  f.create_pod("default", "after-sync");
  REQUIRE(f.run_until([&] { return recorder.adds.load() == 701; }));
  CHECK(recorder.initial_adds.load() == 700);
  CHECK(run.observer->items == 701);
  CHECK(run.observer->watches == 1);  // the same stream goes on with the changes
  run.require_consistent();
}

TEST_CASE("every watch event reaches the cache first and then the handlers, in order") {
  Fixture f;
  f.create_pods("default", 100);
  RunningInformer run(f, pod_informer_options());
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());

  for (int i = 0; i < 40; ++i) f.create_pod("shop", "new-" + std::to_string(i));
  std::string last_rv;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 30; ++i) last_rv = f.touch_pod("default", "pod-" + std::to_string(i));
  }
  for (int i = 60; i < 85; ++i) f.delete_pod("default", "pod-" + std::to_string(i));

  REQUIRE(f.run_until([&] {
    return recorder.adds.load() == 140 && recorder.updates.load() == 90 &&
           recorder.deletes.load() == 25;
  }));
  CHECK(recorder.last("default/pod-29") == "update@" + last_rv);
  CHECK(recorder.last("default/pod-60") == "delete");
  CHECK(recorder.last("shop/new-39").starts_with("add@"));
  CHECK(recorder.tombstones.load() == 0);  // the watch saw every delete with its final state
  CHECK(recorder.cache_behind.load() == 0);
  CHECK(recorder.backwards.load() == 0);
  CHECK(run.observer->events == 40 + 90 + 25);
  CHECK(run.observer->items == 100 + 40 + 90 + 25);  // the LIST's and every event's object
  CHECK(run.observer->relists.empty());
  run.require_consistent();
}

TEST_CASE("bookmarks advance the last synced resourceVersion without events") {
  Fixture f;
  f.create_pods("default", 10);
  RunningInformer run(f, pod_informer_options());
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  const std::string rv = f.create_config_map("elsewhere");
  REQUIRE(f.run_until([&] { return run.informer.last_sync_resource_version() == rv; }));
  CHECK(run.observer->events == 0);
  CHECK(run.observer->bookmarks >= 1);
  CHECK(run.observer->items == 10);  // bookmarks carry no item
  CHECK(recorder.updates.load() == 0);
}

TEST_CASE("watches rotate (timeoutSeconds) and resume without loss or relist") {
  Fixture f;
  f.create_pods("default", 50);
  auto options = pod_informer_options();
  options.reflector.min_watch_timeout = std::chrono::seconds(1);
  RunningInformer run(f, options);
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  int created = 0;
  REQUIRE(f.run_until([&] {
    f.create_pod("default", "rotating-" + std::to_string(created++));
    return run.observer->watches >= 3;
  }));
  run.require_consistent();
  CHECK(recorder.adds.load() == 50 + created);
  CHECK(run.observer->relists.empty());
  CHECK(run.observer->lists == 1);
}

TEST_CASE("a handler added after start first gets the cache as adds, then the changes") {
  Fixture f;
  f.create_pods("default", 50);
  RunningInformer run(f, pod_informer_options());
  Recorder early(run.cache());
  run.add_event_handler("early", early.handler());
  run.start();
  REQUIRE(run.synced());
  f.delete_pod("default", "pod-0");
  f.create_pod("default", "extra");
  REQUIRE(f.run_until([&] { return early.deletes.load() == 1 && early.adds.load() == 51; }));

  Recorder late(run.cache());
  auto listener = run.add_event_handler("late", late.handler());
  REQUIRE(f.run_until([&] { return listener->has_synced(); }));
  CHECK(late.adds.load() == 50);
  CHECK(late.initial_adds.load() == 50);
  CHECK(late.last("default/pod-0").empty());
  CHECK(late.last("default/extra").starts_with("add@"));

  const std::string rv = f.touch_pod("default", "pod-1");
  REQUIRE(f.run_until([&] { return late.updates.load() == 1 && early.updates.load() == 1; }));
  CHECK(late.last("default/pod-1") == "update@" + rv);
  CHECK(late.deletes.load() == 0);
}

TEST_CASE("a selector informer sees objects leaving the selection as deletes, entering as adds") {
  Fixture f;
  for (int i = 0; i < 10; ++i) {
    f.create_pod("default", "web-" + std::to_string(i), {{"app", "web"}});
    f.create_pod("default", "db-" + std::to_string(i), {{"app", "db"}});
  }
  RunningInformer run(f, pod_informer_options("app=web"));
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  CHECK(run.cache().size() == 10);

  for (int i = 0; i < 3; ++i) f.set_pod_label("default", "web-" + std::to_string(i), "app", "db");
  for (int i = 0; i < 2; ++i) f.set_pod_label("default", "db-" + std::to_string(i), "app", "web");
  f.delete_pod("default", "web-9");
  f.delete_pod("default", "db-9");  // never selected: nothing to see
  f.touch_pod("default", "db-8");   // never selected: nothing to see

  REQUIRE(f.run_until([&] { return recorder.deletes.load() == 4 && recorder.adds.load() == 12; }));
  CHECK(recorder.updates.load() == 0);
  CHECK(recorder.last("default/web-0") == "delete");
  CHECK(recorder.last("default/db-1").starts_with("add@"));
  CHECK(recorder.last("default/db-9").empty());
  CHECK(run.cache().size() == 8);
  run.require_consistent("app=web");
}

}  // namespace
}  // namespace rg::informer::e2e
