// SharedInformerFactory and SharedIndexInformer lifecycles against kube-sim: 401/403 surfaced
// through sync_state and wait_for_cache_sync (and recovery), a slow handler not blocking
// another, shutdown in the middle of a sync.
#include <doctest/doctest.h>

#include "informer/informer_metrics.hpp"
#include "informer/shared_informer_factory.hpp"
#include "test/informer_e2e/gate.hpp"
#include "test/informer_e2e/recorder.hpp"
#include "test/informer_e2e/running_factory.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

SharedInformerFactoryOptions fast_factory() {
  SharedInformerFactoryOptions options;
  options.reflector = fast_reflector();
  return options;
}

TEST_CASE("401/403 are surfaced with the server's reason, not as a bare timeout, then recover") {
  Fixture f;
  f.create_pods("default", 20);
  Interception deny;
  deny.deny_resource = "pods";
  reflector::Health expected{};
  std::string reason;
  std::string metric_reason;
  SUBCASE("403 Forbidden") {
    deny.deny_code = 403;
    expected = reflector::Health::kForbidden;
    reason = "cannot list resource \"pods\"";
    metric_reason = "forbidden";
  }
  SUBCASE("401 Unauthorized") {
    deny.deny_code = 401;
    expected = reflector::Health::kUnauthorized;
    reason = "Unauthorized";
    metric_reason = "unauthorized";
  }
  f.sim.set_interception(deny);
  prometheus::Registry registry;
  InformerMetrics metrics(registry);
  auto options = fast_factory();
  options.observer = [&metrics](const std::string& name) { return metrics.observer(name); };
  RunningFactory run(f, options);
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  run.start();

  REQUIRE(f.run_until([&] {
    auto state = run.state("pods");
    return state && state->health == expected;
  }));
  const auto results = f.await(run.factory.wait_for_cache_sync(std::chrono::milliseconds(100)));
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].synced);
  CHECK(results[0].health == expected);
  CHECK_MESSAGE(results[0].message.find(reason) != std::string::npos, results[0].message);
  CHECK(pods.status().health == expected);
  CHECK(counter_value(registry, "reflector_failures_total",
                      {{"resource", "pods"}, {"reason", metric_reason}}) >= 1);

  f.sim.set_interception({});
  REQUIRE(f.run_until([&] { return run.state("pods")->synced; }));
  CHECK(run.state("pods")->health == reflector::Health::kHealthy);
  f.require_cache_matches_server(pods.indexer(), client::resources::pods());
}

TEST_CASE("the factory hands out one informer per resource and selectors") {
  Fixture f;
  SharedInformerFactory factory(f.client, fast_factory());
  auto& a = factory.informer_for<client::Pod>(client::resources::pods());
  auto& b = factory.informer_for<client::Pod>(client::resources::pods());
  auto& web = factory.informer_for<client::Pod>(
      client::resources::pods(), "web-pods",
      [](auto& options) { options.scope.label_selector = "app=web"; });
  CHECK(&a == &b);
  CHECK(&a != &web);
  CHECK(web.name() == "web-pods");
}

TEST_CASE("a handler that blocks stalls neither another handler nor the cache") {
  Fixture f(2);  // two io threads: the blocked handler holds one
  f.create_pods("default", 100);
  Gate gate;
  std::atomic<int> slow_calls{0};
  RunningFactory run(f, fast_factory());
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  struct ReleaseOnExit {
    Gate& gate;
    ~ReleaseOnExit() { gate.release(); }  // before the factory shuts down
  } release_on_exit{gate};
  ResourceEventHandlerFuncs<client::Pod> slow;
  slow.on_add = [&](const std::shared_ptr<const client::Pod>&, bool) {
    ++slow_calls;
    gate.wait();
  };
  auto slow_listener = pods.add_event_handler("slow", slow);
  Recorder fast(pods.indexer());
  auto fast_listener = pods.add_event_handler("fast", fast.handler());
  run.start();

  REQUIRE(f.run_until([&] { return fast_listener->has_synced(); }));
  CHECK(fast.adds.load() == 100);
  CHECK(pods.has_synced());
  f.create_pod("default", "while-blocked");
  REQUIRE(f.run_until([&] { return fast.adds.load() == 101 && pods.indexer().size() == 101; }));
  CHECK(slow_calls == 1);
  CHECK_FALSE(slow_listener->has_synced());

  gate.release();
  REQUIRE(f.run_until([&] { return slow_calls == 101; }));
  CHECK(slow_listener->has_synced());
}

TEST_CASE("shutdown in the middle of a sync is prompt and leaves nothing behind") {
  Fixture f;
  f.create_pods("default", 1500);
  sim::FaultConfig slow_server;
  slow_server.latency_ms = 50;
  f.sim.faults().set_config(slow_server);
  auto options = pod_informer_options();
  options.reflector.page_size = 100;
  Interception interception;
  std::function<bool(const RunningInformer&)> midway;
  SUBCASE("during a paginated LIST") {
    midway = [](const RunningInformer& run) { return run.observer->lists >= 3; };
  }
  SUBCASE("during a streaming list whose end never comes") {
    options.reflector.use_watch_list = true;
    options.reflector.initial_events_timeout = std::chrono::hours(1);
    interception.drop_initial_events_end = true;
    midway = [&f](const RunningInformer&) { return f.sim.watch_list_requests() >= 1; };
  }
  SUBCASE("while backing off from 403") {
    options.reflector.backoff.initial = std::chrono::hours(1);
    options.reflector.backoff.max = std::chrono::hours(1);
    interception.deny_code = 403;
    interception.deny_resource = "pods";
    midway = [](const RunningInformer& run) {
      return run.informer.status().health == reflector::Health::kForbidden;
    };
  }
  f.sim.set_interception(interception);
  RunningInformer run(f, options);
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(f.run_until([&] { return midway(run); }));
  CHECK_FALSE(run.informer.has_synced());
  CHECK(f.stop());
}

}  // namespace
}  // namespace rg::informer::e2e
