// SharedIndexInformer against a misbehaving kube-sim: dropped watches, 410 on resume,
// compaction, stalls, a "restart" (every connection closed), error answers; the streaming
// list's fallbacks (refused, initial-events-end never sent). Every sequence ends with the cache
// equal to a fresh LIST.
#include <doctest/doctest.h>

#include "test/informer_e2e/recorder.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

// Changes of every kind to pods pod-<from>..pod-<to - 1>: updates, deletes of every third,
// and as many new pods named after `round`.
void churn(Fixture& f, int from, int to, const std::string& round) {
  for (int i = from; i < to; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    if (i % 3 == 0) {
      f.delete_pod("default", name);
    } else {
      f.touch_pod("default", name);
    }
    f.create_pod("default", round + "-" + std::to_string(i));
  }
}

// Returns once the informer's watch is established: a probe pod made now reaches its cache.
void wait_watching(Fixture& f, RunningInformer& run) {
  static int probes = 0;
  const std::string probe = "probe-" + std::to_string(++probes);
  f.create_pod("default", probe);
  REQUIRE(f.run_until([&] { return run.cache().get_by_key("default/" + probe) != nullptr; }));
}

// Cuts the informer's watch and holds its next requests for a second; returns once the new
// WATCH is on its way, so changes made now are surely missed by the old one.
void cut_and_hold(Fixture& f, RunningInformer& run) {
  wait_watching(f, run);  // else the cut could miss a watch still being opened
  const int watches = run.observer->watches;
  f.sim.faults().stall(std::chrono::milliseconds(1000));
  f.sim.faults().close_connections();
  REQUIRE(f.run_until([&] { return run.observer->watches > watches; }));
}

TEST_CASE("watches dropped mid-stream resume from the last resourceVersion without loss") {
  bool watch_list = false;
  SUBCASE("after a paginated LIST") {}
  SUBCASE("after a streaming list") { watch_list = true; }
  Fixture f;
  f.create_pods("default", 300);
  RunningInformer run(f, pod_informer_options("", watch_list));
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  const int watches_before = run.observer->watches;

  for (int round = 0; round < 10; ++round) {
    wait_watching(f, run);  // so that the drop hits a watch, not one still being opened
    churn(f, round * 30, round * 30 + 15, "a" + std::to_string(round));
    f.sim.faults().drop_watches();
    churn(f, round * 30 + 15, round * 30 + 30, "b" + std::to_string(round));
    REQUIRE(f.run_until([&] { return run.observer->watches > watches_before + round; }));
  }
  run.require_consistent();
  CHECK(run.observer->relists.empty());    // resumed every time, never relisted
  CHECK(recorder.tombstones.load() == 0);  // so every delete was seen with its final state
  CHECK(recorder.cache_behind.load() == 0);
  CHECK(recorder.backwards.load() == 0);
}

TEST_CASE("410 on resume: changes missed while disconnected arrive through a relist") {
  bool watch_list = false;
  SUBCASE("paginated LIST") {}
  SUBCASE("streaming list") { watch_list = true; }
  Fixture f;
  f.create_pods("default", 200);
  RunningInformer run(f, pod_informer_options("", watch_list));
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());

  // Hold new requests, cut the watch, change things meanwhile and forget the history: the
  // resumed watch gets 410 Expired and the reflector must relist.
  cut_and_hold(f, run);
  churn(f, 0, 60, "missed");
  f.sim.faults().compact();

  run.require_consistent();
  CHECK(run.observer->relists["expired"] >= 1);
  CHECK(recorder.deletes.load() == 20);
  CHECK(recorder.tombstones.load() ==
        20);  // deletes missed while disconnected: final state unknown
  CHECK(recorder.cache_behind.load() == 0);
  CHECK(run.informer.status().health == reflector::Health::kHealthy);

  // And the new watch delivers again.
  f.create_pod("default", "after-relist");
  REQUIRE(f.run_until([&] { return !recorder.last("default/after-relist").empty(); }));
}

TEST_CASE("compaction while watching, then a dropped watch: relist, cache consistent") {
  Fixture f;
  f.create_pods("default", 100);
  RunningInformer run(f, pod_informer_options());
  run.start();
  REQUIRE(run.synced());
  for (int round = 0; round < 5; ++round) {
    churn(f, round * 20, round * 20 + 10, "c" + std::to_string(round));
    f.sim.faults().compact();
    churn(f, round * 20 + 10, round * 20 + 20, "d" + std::to_string(round));
    f.sim.faults().drop_watches();
    run.require_consistent();
  }
}

TEST_CASE("server stalls and restarts (every connection closed) while objects change") {
  Fixture f;
  f.create_pods("default", 150);
  RunningInformer run(f, pod_informer_options());
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  for (int round = 0; round < 4; ++round) {
    f.sim.faults().stall(std::chrono::milliseconds(300));
    churn(f, round * 30, round * 30 + 15, "s" + std::to_string(round));
    f.sim.faults().close_connections();
    churn(f, round * 30 + 15, round * 30 + 30, "r" + std::to_string(round));
    run.require_consistent();
  }
  CHECK(recorder.cache_behind.load() == 0);
  CHECK(run.informer.status().health == reflector::Health::kHealthy);
}

TEST_CASE("error answers (500, 503, 429) to half the requests: the informer still converges") {
  Fixture f;
  f.create_pods("default", 1100);
  sim::FaultConfig faults;
  faults.error_rate = 0.5;
  faults.retry_after_seconds = 0;
  SUBCASE("500") { faults.error_code = 500; }
  SUBCASE("503") { faults.error_code = 503; }
  SUBCASE("429") { faults.error_code = 429; }
  f.sim.faults().set_config(faults);
  RunningInformer run(f, pod_informer_options());
  run.start();
  REQUIRE(run.synced());
  for (int round = 0; round < 5; ++round) {
    churn(f, round * 40, round * 40 + 40, "e" + std::to_string(round));
    f.sim.faults().drop_watches();
  }
  f.sim.faults().set_config({});
  run.require_consistent();
}

TEST_CASE("streaming list refused by the server: falls back to a paginated LIST for good") {
  Fixture f;
  f.create_pods("default", 600);
  Interception refuse;
  refuse.refuse_watch_list = true;
  f.sim.set_interception(refuse);
  RunningInformer run(f, pod_informer_options("", true));
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());
  CHECK(run.cache().size() == 600);
  CHECK(recorder.initial_adds.load() == 600);
  CHECK(f.sim.watch_list_requests() == 1);
  CHECK(run.observer->lists == 2);

  // A later relist does not try the refused watch-list again.
  cut_and_hold(f, run);
  churn(f, 0, 30, "x");
  f.sim.faults().compact();
  run.require_consistent();
  CHECK(run.observer->relists["expired"] >= 1);
  CHECK(f.sim.watch_list_requests() == 1);
}

TEST_CASE("initial-events-end bookmark never sent: falls back to a LIST within the bound") {
  Fixture f;
  f.create_pods("default", 300);
  Interception drop_end;
  drop_end.drop_initial_events_end = true;
  f.sim.set_interception(drop_end);
  auto options = pod_informer_options("", true);
  options.reflector.initial_events_timeout = std::chrono::milliseconds(300);
  RunningInformer run(f, options);
  Recorder recorder(run.cache());
  run.add_event_handler("recorder", recorder.handler());
  run.start();
  REQUIRE(run.synced());  // a generous overall deadline: the bound itself is 300 ms
  CHECK(f.sim.watch_list_requests() == 1);
  CHECK(run.observer->lists == 1);
  CHECK(recorder.initial_adds.load() ==
        300);  // the initial events of the abandoned stream are not doubled

  f.create_pod("default", "after-fallback");
  f.touch_pod("default", "pod-1");
  REQUIRE(f.run_until([&] { return recorder.adds.load() == 301 && recorder.updates.load() == 1; }));
  run.require_consistent();
}

}  // namespace
}  // namespace rg::informer::e2e
