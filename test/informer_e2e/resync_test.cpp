// The informer's safety nets against kube-sim: resyncs (a factory's default period, a handler's
// own, handlers added after start -- also with a shorter period than the others, or to an
// informer that did no resyncs), an opt-in bound on a handler's buffer, and the handlers' and
// DeltaFIFO's backlog metrics.
#include <doctest/doctest.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "informer/informer_metrics.hpp"
#include "informer/shared_informer_factory.hpp"
#include "test/informer_e2e/gate.hpp"
#include "test/informer_e2e/running_factory.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

using namespace std::chrono_literals;

// Counts resyncs: updates whose old and new object have the same resourceVersion.
struct ResyncCounter {
  std::atomic<int> resyncs{0};
  std::atomic<int> adds{0};
  ResourceEventHandlerFuncs<client::Pod> handler() {
    return {.on_add = [this](const auto&, bool) { ++adds; },
            .on_update =
                [this](const auto& old_pod, const auto& new_pod) {
                  if (old_pod->metadata.resource_version == new_pod->metadata.resource_version)
                    ++resyncs;
                },
            .on_delete = {}};
  }
};

SharedInformerFactoryOptions options_with_default_resync(Clock::duration period) {
  SharedInformerFactoryOptions options;
  options.reflector = fast_reflector();
  options.default_resync_period = period;
  return options;
}

// The value InformerMetrics' scrape-time collector gives `family` for a series with `labels`
// (among others); -1 when there is none.
double scraped(const InformerMetrics& metrics, const std::string& family,
               const std::map<std::string, std::string>& labels) {
  for (const auto& collected : metrics.collectable()->Collect()) {
    if (collected.name != family) continue;
    for (const auto& metric : collected.metric) {
      const bool matches = std::all_of(labels.begin(), labels.end(), [&](const auto& wanted) {
        return std::any_of(metric.label.begin(), metric.label.end(), [&](const auto& label) {
          return label.name == wanted.first && label.value == wanted.second;
        });
      });
      if (!matches) continue;
      return collected.type == prometheus::MetricType::Counter ? metric.counter.value
                                                               : metric.gauge.value;
    }
  }
  return -1;
}

TEST_CASE("a handler added after start with a resync period is resynced, though none was before") {
  Fixture f;
  f.create_pods("default", 5);
  RunningFactory run(f, options_with_default_resync(0s));
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  ResyncCounter plain;
  pods.add_event_handler("plain", plain.handler());
  run.start();
  REQUIRE(f.run_until([&] { return pods.has_synced() && plain.adds == 5; }));

  // The resync loop was idle (no handler wanted resyncs); this one must wake it.
  ResyncCounter late;
  pods.add_event_handler("late", late.handler(), 1s);
  CHECK_MESSAGE(f.run_until([&] { return late.resyncs >= 10; }, 30s),
                "the late handler got " << late.resyncs.load() << " resync updates");
  CHECK(plain.resyncs == 0);
}

TEST_CASE("the factory's default resync period, and a later handler's shorter one") {
  Fixture f;
  f.create_pods("default", 5);
  // Handlers without a period of their own get the factory's (an hour here).
  RunningFactory run(f, options_with_default_resync(1h));
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  ResyncCounter hourly;
  pods.add_event_handler("hourly", hourly.handler());
  ResyncCounter never;
  pods.add_event_handler("never", never.handler(), HandlerOptions{.resync_period = 0s});
  run.start();
  REQUIRE(f.run_until([&] { return pods.has_synced() && hourly.adds == 5 && never.adds == 5; }));

  // Added after start with a period far shorter than the hour the informer checks at: the check
  // shrinks to it (client-go would raise this handler's period to the hour instead).
  ResyncCounter fast;
  pods.add_event_handler("fast", fast.handler(), HandlerOptions{.resync_period = 1s});
  CHECK_MESSAGE(f.run_until([&] { return fast.resyncs >= 10; }, 30s),
                "the fast handler got " << fast.resyncs.load() << " resync updates");
  CHECK(hourly.resyncs == 0);
  CHECK(never.resyncs == 0);
}

TEST_CASE("a bounded handler that falls behind stalls its informer; its backlog is a metric") {
  Fixture f(2);  // two io threads: the blocked handler holds one
  f.create_pods("default", 3);
  prometheus::Registry registry;
  InformerMetrics metrics(registry);
  RunningFactory run(f, options_with_default_resync(0s));
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  Gate gate;
  struct ReleaseOnExit {
    Gate& gate;
    ~ReleaseOnExit() { gate.release(); }  // before the factory shuts down
  } release_on_exit{gate};
  std::atomic<int> slow_calls{0};
  auto slow = pods.add_event_handler("slow",
                                     {.on_add =
                                          [&](const auto&, bool initial) {
                                            ++slow_calls;
                                            if (!initial) gate.wait();
                                          },
                                      .on_update = {},
                                      .on_delete = {}},
                                     HandlerOptions{.resync_period = {}, .max_pending = 4});
  ResyncCounter other;
  auto other_listener = pods.add_event_handler("other", other.handler());
  metrics.track_processing(
      "pods", [&pods] { return pods.fifo_depth(); }, [&pods] { return pods.handler_stats(); });
  run.start();
  REQUIRE(f.run_until([&] { return other.adds == 3 && slow_calls == 3; }));

  // The slow handler blocks on its first new pod; four more fill its buffer to the bound
  // (one being delivered, three waiting)...
  for (int i = 0; i < 4; ++i) f.create_pod("default", "new-" + std::to_string(i));
  REQUIRE(f.run_until([&] { return other.adds == 7 && slow->pending() == 4; }));
  // ...after which the informer waits for it: the other handler and the cache stop too.
  for (int i = 4; i < 8; ++i) f.create_pod("default", "new-" + std::to_string(i));
  REQUIRE(f.run_until([&] { return pods.fifo_depth() == 4; }));
  CHECK(other.adds == 7);
  CHECK(pods.indexer().size() == 7);
  CHECK(slow->pending() == 4);
  CHECK(slow->max_pending() == 4);
  CHECK(scraped(metrics, "informer_handler_pending_notifications",
                {{"resource", "pods"}, {"handler", "slow"}}) == 4);
  CHECK(scraped(metrics, "informer_delta_fifo_depth", {{"resource", "pods"}}) == 4);

  gate.release();
  REQUIRE(f.run_until([&] { return other.adds == 11 && slow_calls == 11; }));
  CHECK(pods.indexer().size() == 11);
  REQUIRE(f.run_until([&] { return slow->pending() == 0 && other_listener->pending() == 0; }));
  CHECK(scraped(metrics, "informer_handler_notifications_total",
                {{"resource", "pods"}, {"handler", "slow"}}) == 11);
  CHECK(scraped(metrics, "informer_handler_failures_total",
                {{"resource", "pods"}, {"handler", "other"}}) == 0);
}

TEST_CASE("a handler that throws is counted in informer_handler_failures_total") {
  Fixture f;
  f.create_pods("default", 3);
  prometheus::Registry registry;
  InformerMetrics metrics(registry);
  RunningFactory run(f, options_with_default_resync(0s));
  auto& pods = run.factory.informer_for<client::Pod>(client::resources::pods());
  pods.add_event_handler("throws",
                         {.on_add = [](const auto&, bool) { throw std::runtime_error("boom"); },
                          .on_update = {},
                          .on_delete = {}});
  metrics.track_processing(
      "pods", [&pods] { return pods.fifo_depth(); }, [&pods] { return pods.handler_stats(); });
  run.start();
  CHECK(f.run_until([&] {
    return scraped(metrics, "informer_handler_failures_total",
                   {{"resource", "pods"}, {"handler", "throws"}}) == 3;
  }));
  CHECK(scraped(metrics, "informer_handler_notifications_total",
                {{"resource", "pods"}, {"handler", "throws"}}) == 3);
}

}  // namespace
}  // namespace rg::informer::e2e
