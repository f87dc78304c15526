// The cache consistency checker against kube-sim: silent while the cache mirrors the server,
// and reporting exactly the objects a corrupted cache gets wrong -- in its result, in the log
// and in informer_cache_inconsistencies_total -- when run by a SharedInformerFactory.
#include <doctest/doctest.h>
#include <prometheus/registry.h>

#include "informer/consistency_checker.hpp"
#include "informer/informer_metrics.hpp"
#include "informer/shared_informer_factory.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

using Kind = CacheDifference::Kind;

// Breaks a cache behind its informer's back: one object dropped, one stale, one invented.
void corrupt(Indexer<client::Pod>& cache) {
  cache.remove("default/pod-3");
  auto stale = std::make_shared<client::Pod>(*cache.get_by_key("default/pod-4"));
  stale->metadata.resource_version = "1";
  cache.update(stale);
  auto ghost = std::make_shared<client::Pod>(*stale);
  ghost->metadata.name = "ghost";
  ghost->metadata.resource_version = "2";
  cache.add(ghost);
}

TEST_CASE("the consistency checker finds nothing in a healthy cache, and every corruption") {
  Fixture f;
  f.create_pods("default", 700);  // two LIST pages of 500
  RunningInformer run(f, pod_informer_options());
  run.start();
  REQUIRE(run.synced());
  auto observer = std::make_shared<CountingObserver>();
  ConsistencyCheckOptions options;
  options.confirm_after = std::chrono::milliseconds(50);
  CacheConsistencyChecker checker(
      f.client, {client::resources::pods(), "", ""}, "pods",
      [&run] { return cache_state(run.cache()); }, options, observer);

  CHECK(f.await(checker.check()).empty());
  CHECK(observer->consistency_checks == 1);
  CHECK(observer->inconsistencies == 0);

  corrupt(run.informer.indexer());
  const auto differences = f.await(checker.check());
  REQUIRE(differences.size() == 3);
  const std::string server_rv = f.server_state(client::resources::pods()).at("default/pod-4");
  CHECK(differences[0] ==
        CacheDifference{Kind::kMissing, "default/pod-3", "",
                        f.server_state(client::resources::pods()).at("default/pod-3")});
  CHECK(differences[1] == CacheDifference{Kind::kStale, "default/pod-4", "1", server_rv});
  CHECK(differences[2] == CacheDifference{Kind::kExtra, "default/ghost", "2", ""});
  CHECK(observer->inconsistencies == 3);
}

TEST_CASE("a lagging cache is not reported: the second look finds it caught up") {
  Fixture f;
  f.create_pods("default", 50);
  RunningInformer run(f, pod_informer_options());
  run.start();
  REQUIRE(run.synced());
  f.create_pod("default", "late");
  REQUIRE(f.run_until([&] { return run.cache().get_by_key("default/late") != nullptr; }));
  // At the first look the cache has not seen "late" yet; at the second it has.
  int looks = 0;
  auto snapshot = [&] {
    CacheState state = cache_state(run.cache());
    if (looks++ == 0) state.erase("default/late");
    return state;
  };
  ConsistencyCheckOptions options;
  options.confirm_after = std::chrono::milliseconds(20);
  auto observer = std::make_shared<CountingObserver>();
  CacheConsistencyChecker checker(f.client, {client::resources::pods(), "", ""}, "pods", snapshot,
                                  options, observer);
  CHECK(f.await(checker.check()).empty());
  CHECK(looks == 2);
  CHECK(observer->inconsistencies == 0);
}

TEST_CASE("a cache not worth checking (not synced, reflector failing) is skipped, not reported") {
  Fixture f;
  f.create_pods("default", 5);
  auto observer = std::make_shared<CountingObserver>();
  CacheConsistencyChecker checker(
      f.client, {client::resources::pods(), "", ""}, "pods",
      [] { return std::optional<CacheState>(); }, ConsistencyCheckOptions{}, observer);
  CHECK(f.await(checker.check()).empty());
  CHECK(observer->consistency_checks == 0);
}

TEST_CASE("a factory with consistency_check reports corruption in its metrics") {
  Fixture f;
  f.create_pods("default", 20);
  prometheus::Registry registry;
  InformerMetrics metrics(registry);
  SharedInformerFactoryOptions options;
  options.reflector = fast_reflector();
  options.observer = [&metrics](const std::string& name) { return metrics.observer(name); };
  options.consistency_check =
      ConsistencyCheckOptions{std::chrono::milliseconds(50), std::chrono::milliseconds(20), 500};
  SharedInformerFactory factory(f.client, options);
  auto& pods = factory.informer_for<client::Pod>(client::resources::pods());
  factory.start(f.io.get_executor());
  struct ShutdownOnExit {
    Fixture& f;
    SharedInformerFactory& factory;
    ~ShutdownOnExit() { f.await(factory.shutdown()); }
  } shutdown{f, factory};

  REQUIRE(f.run_until([&] {
    return pods.has_synced() && counter_value(registry, "informer_cache_consistency_checks_total",
                                              {{"resource", "pods"}}) >= 2;
  }));
  CHECK(counter_value(registry, "informer_cache_inconsistencies_total", {{"resource", "pods"}}) ==
        0);

  corrupt(pods.indexer());
  REQUIRE(f.run_until([&] {
    return counter_value(registry, "informer_cache_inconsistencies_total",
                         {{"resource", "pods"}}) >= 3;
  }));
}

}  // namespace
}  // namespace rg::informer::e2e
