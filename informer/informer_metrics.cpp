// The informers' Prometheus metrics (see informer_metrics.hpp).
#include "informer/informer_metrics.hpp"

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/metric_family.h>

#include <charconv>
#include <mutex>
#include <vector>

namespace rg::informer {

namespace {

constexpr const char* kRelistReasons[] = {"expired", "watch_list_fallback", "error"};
// The reflector's failure kinds (Health other than healthy), as reflector_failures_total{reason}.
constexpr reflector::Health kFailures[] = {
    reflector::Health::kForbidden, reflector::Health::kUnauthorized, reflector::Health::kThrottled,
    reflector::Health::kFailing};
constexpr client::WatchEventType kEventTypes[] = {
    client::WatchEventType::kAdded, client::WatchEventType::kModified,
    client::WatchEventType::kDeleted, client::WatchEventType::kBookmark};

// Cache sizes, resourceVersions, DeltaFIFO depths and handler counts read at scrape time: nothing
// to update on the hot path.
class CacheCollector final : public prometheus::Collectable {
 public:
  struct Tracked {
    std::string resource;
    std::function<std::size_t()> size;
    std::function<std::string()> resource_version;
  };
  struct Processing {
    std::string resource;
    std::function<std::size_t()> fifo_depth;
    std::function<std::vector<HandlerStats>()> handlers;
  };
  void add(Tracked tracked) {
    std::lock_guard lock(mutex_);
    tracked_.push_back(std::move(tracked));
  }
  void add(Processing processing) {
    std::lock_guard lock(mutex_);
    processing_.push_back(std::move(processing));
  }
  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily objects{"informer_cache_objects",
                                     "Objects in the informer's cache",
                                     prometheus::MetricType::Gauge,
                                     {}};
    prometheus::MetricFamily version{"reflector_last_sync_resource_version",
                                     "resourceVersion the reflector last synced to (as a number)",
                                     prometheus::MetricType::Gauge,
                                     {}};
    std::lock_guard lock(mutex_);
    for (const Tracked& t : tracked_) {
      prometheus::ClientMetric metric;
      metric.label = {{"resource", t.resource}};
      metric.gauge.value = static_cast<double>(t.size());
      objects.metric.push_back(metric);
      const std::string rv = t.resource_version();
      double number = 0;
      std::from_chars(rv.data(), rv.data() + rv.size(), number);
      metric.gauge.value = number;
      version.metric.push_back(metric);
    }
    std::vector<prometheus::MetricFamily> families{std::move(objects), std::move(version)};
    collect_processing(families);
    return families;
  }

 private:
  // informer_delta_fifo_depth and the informer_handler_* families.
  void collect_processing(std::vector<prometheus::MetricFamily>& out) const {
    prometheus::MetricFamily depth{"informer_delta_fifo_depth",
                                   "Keys queued in the informer's DeltaFIFO, waiting to be "
                                   "processed (its capacity bounds their deltas)",
                                   prometheus::MetricType::Gauge,
                                   {}};
    prometheus::MetricFamily pending{"informer_handler_pending_notifications",
                                     "Notifications buffered for an event handler, or being "
                                     "delivered to it",
                                     prometheus::MetricType::Gauge,
                                     {}};
    prometheus::MetricFamily delivered{"informer_handler_notifications_total",
                                       "Notifications delivered to an event handler",
                                       prometheus::MetricType::Counter,
                                       {}};
    prometheus::MetricFamily failures{"informer_handler_failures_total",
                                      "Event handler callbacks that threw (the informer goes on "
                                      "with the next notification)",
                                      prometheus::MetricType::Counter,
                                      {}};
    for (const Processing& p : processing_) {
      prometheus::ClientMetric metric;
      metric.label = {{"resource", p.resource}};
      metric.gauge.value = static_cast<double>(p.fifo_depth());
      depth.metric.push_back(metric);
      for (const HandlerStats& handler : p.handlers()) {
        prometheus::ClientMetric each;
        each.label = {{"handler", handler.handler}, {"resource", p.resource}};
        each.gauge.value = static_cast<double>(handler.pending);
        pending.metric.push_back(each);
        each.gauge = {};
        each.counter.value = static_cast<double>(handler.delivered);
        delivered.metric.push_back(each);
        each.counter.value = static_cast<double>(handler.failures);
        failures.metric.push_back(each);
      }
    }
    for (auto* family : {&depth, &pending, &delivered, &failures})
      out.push_back(std::move(*family));
  }

  mutable std::mutex mutex_;
  std::vector<Tracked> tracked_;
  std::vector<Processing> processing_;
};

class PrometheusReflectorObserver final : public ReflectorObserver {
 public:
  struct Counters {
    prometheus::Counter& lists;
    prometheus::Counter& watches;
    prometheus::Counter& items;
    prometheus::Counter& consistency_checks;
    prometheus::Counter& inconsistencies;
    prometheus::Counter& projection_failures;
    std::vector<prometheus::Counter*> relists;
    std::vector<prometheus::Counter*> events;
    std::vector<prometheus::Counter*> failures;
  };
  explicit PrometheusReflectorObserver(Counters counters) : c_(std::move(counters)) {}

  void on_list() override { c_.lists.Increment(); }
  void on_relist(std::string_view reason) override {
    for (std::size_t i = 0; i < std::size(kRelistReasons); ++i) {
      if (reason == kRelistReasons[i]) c_.relists[i]->Increment();
    }
  }
  void on_watch() override { c_.watches.Increment(); }
  void on_event(client::WatchEventType type) override {
    for (std::size_t i = 0; i < std::size(kEventTypes); ++i) {
      if (type == kEventTypes[i]) c_.events[i]->Increment();
    }
  }
  void on_items(std::size_t count) override { c_.items.Increment(static_cast<double>(count)); }
  void on_health(reflector::Health health) override {
    for (std::size_t i = 0; i < std::size(kFailures); ++i) {
      if (health == kFailures[i]) c_.failures[i]->Increment();
    }
  }
  void on_consistency_check(std::size_t inconsistencies) override {
    c_.consistency_checks.Increment();
    c_.inconsistencies.Increment(static_cast<double>(inconsistencies));
  }
  void on_projection_failure() override { c_.projection_failures.Increment(); }

 private:
  Counters c_;
};

}  // namespace

struct InformerMetrics::Families {
  explicit Families(prometheus::Registry& registry)
      : lists(prometheus::BuildCounter()
                  .Name("reflector_lists_total")
                  .Help("LIST requests (pages) sent by reflectors")
                  .Register(registry)),
        watches(prometheus::BuildCounter()
                    .Name("reflector_watches_total")
                    .Help("WATCH requests sent by reflectors")
                    .Register(registry)),
        relists(prometheus::BuildCounter()
                    .Name("reflector_relists_total")
                    .Help("Lists after the first sync, by reason")
                    .Register(registry)),
        events(prometheus::BuildCounter()
                   .Name("reflector_watch_events_total")
                   .Help("Watch events received, by type")
                   .Register(registry)),
        items(prometheus::BuildCounter()
                  .Name("reflector_items_total")
                  .Help("Objects received: LIST items and watch event objects (streaming-list "
                        "initial events included, bookmarks not)")
                  .Register(registry)),
        failures(prometheus::BuildCounter()
                     .Name("reflector_failures_total")
                     .Help("Failed list/watch requests of reflectors, by reason (forbidden, "
                           "unauthorized, throttled, failing)")
                     .Register(registry)),
        consistency_checks(prometheus::BuildCounter()
                               .Name("informer_cache_consistency_checks_total")
                               .Help("Cache consistency checks completed (cache against a LIST)")
                               .Register(registry)),
        inconsistencies(prometheus::BuildCounter()
                            .Name("informer_cache_inconsistencies_total")
                            .Help("Objects whose cached state was confirmed to differ from the "
                                  "server's by a consistency check")
                            .Register(registry)),
        projection_failures(prometheus::BuildCounter()
                                .Name("informer_projection_failures_total")
                                .Help("Objects left out of the cache because their projection "
                                      "to the cached type failed")
                                .Register(registry)),
        cache(std::make_shared<CacheCollector>()) {}
  prometheus::Family<prometheus::Counter>& lists;
  prometheus::Family<prometheus::Counter>& watches;
  prometheus::Family<prometheus::Counter>& relists;
  prometheus::Family<prometheus::Counter>& events;
  prometheus::Family<prometheus::Counter>& items;
  prometheus::Family<prometheus::Counter>& failures;
  prometheus::Family<prometheus::Counter>& consistency_checks;
  prometheus::Family<prometheus::Counter>& inconsistencies;
  prometheus::Family<prometheus::Counter>& projection_failures;
  std::shared_ptr<CacheCollector> cache;
};

InformerMetrics::InformerMetrics(prometheus::Registry& registry)
    : families_(std::make_shared<Families>(registry)) {}

std::shared_ptr<ReflectorObserver> InformerMetrics::observer(const std::string& resource) {
  Families& f = *families_;
  std::vector<prometheus::Counter*> relists;
  for (const char* reason : kRelistReasons)
    relists.push_back(&f.relists.Add({{"resource", resource}, {"reason", reason}}));
  std::vector<prometheus::Counter*> events;
  for (const auto type : kEventTypes) {
    events.push_back(
        &f.events.Add({{"resource", resource}, {"type", std::string(client::to_string(type))}}));
  }
  std::vector<prometheus::Counter*> failures;
  for (const auto health : kFailures) {
    failures.push_back(&f.failures.Add(
        {{"resource", resource}, {"reason", std::string(reflector::to_string(health))}}));
  }
  const prometheus::Labels labels{{"resource", resource}};
  return std::make_shared<PrometheusReflectorObserver>(PrometheusReflectorObserver::Counters{
      f.lists.Add(labels), f.watches.Add(labels), f.items.Add(labels),
      f.consistency_checks.Add(labels), f.inconsistencies.Add(labels),
      f.projection_failures.Add(labels), std::move(relists), std::move(events),
      std::move(failures)});
}

void InformerMetrics::track_processing(const std::string& resource,
                                       std::function<std::size_t()> fifo_depth,
                                       std::function<std::vector<HandlerStats>()> handlers) {
  families_->cache->add(
      CacheCollector::Processing{resource, std::move(fifo_depth), std::move(handlers)});
}

void InformerMetrics::track_cache(const std::string& resource, std::function<std::size_t()> size,
                                  std::function<std::string()> resource_version) {
  families_->cache->add(
      CacheCollector::Tracked{resource, std::move(size), std::move(resource_version)});
}

}  // namespace rg::informer

namespace rg::informer {

std::shared_ptr<prometheus::Collectable> InformerMetrics::collectable() const {
  return families_->cache;
}

}  // namespace rg::informer
