// InformerMetrics: the informers' Prometheus metrics with fixed label sets --
// reflector_lists_total, reflector_watches_total, reflector_relists_total{reason},
// reflector_watch_events_total{type}, reflector_items_total, reflector_failures_total{reason},
// reflector_last_sync_resource_version, informer_cache_objects,
// informer_cache_consistency_checks_total, informer_cache_inconsistencies_total,
// informer_projection_failures_total and informer_delta_fifo_depth, all labelled by `resource`; and
// per registered handler (labels `resource` and `handler`) informer_handler_pending_notifications,
// informer_handler_notifications_total and informer_handler_failures_total. observer(name) is
// what a SharedInformerFactory hands each Reflector; the gauges and the handlers' counts are read
// at scrape time (track_cache, track_processing).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "informer/event_handler.hpp"
#include "informer/reflector_observer.hpp"

namespace rg::informer {

class InformerMetrics {
 public:
  explicit InformerMetrics(prometheus::Registry& registry);

  /// The observer for the informer named `resource` (e.g. "pods").
  std::shared_ptr<ReflectorObserver> observer(const std::string& resource);

  /// Samples informer_cache_objects{resource} and reflector_last_sync_resource_version at scrape
  /// time: register each informer's size and resourceVersion readers.
  void track_cache(const std::string& resource, std::function<std::size_t()> size,
                   std::function<std::string()> resource_version);
  /// Samples informer_delta_fifo_depth{resource} (keys queued in the DeltaFIFO) and the
  /// informer_handler_* families of the informer's handlers at scrape time.
  void track_processing(const std::string& resource, std::function<std::size_t()> fifo_depth,
                        std::function<std::vector<HandlerStats>()> handlers);
  /// The scrape-time gauges above; serve it next to the registry.
  std::shared_ptr<prometheus::Collectable> collectable() const;

 private:
  struct Families;
  std::shared_ptr<Families> families_;
};

}  // namespace rg::informer
