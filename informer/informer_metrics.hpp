// InformerMetrics: the informers' Prometheus metrics with fixed label sets --
// reflector_lists_total, reflector_watches_total, reflector_relists_total{reason},
// reflector_watch_events_total{type}, reflector_items_total, reflector_failures_total{reason},
// reflector_last_sync_resource_version, informer_cache_objects,
// informer_cache_consistency_checks_total and informer_cache_inconsistencies_total, all labelled by
// `resource`. observer(name) is what a SharedInformerFactory hands each Reflector.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <string>

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
  /// The scrape-time gauges above; serve it next to the registry.
  std::shared_ptr<prometheus::Collectable> collectable() const;

 private:
  struct Families;
  std::shared_ptr<Families> families_;
};

}  // namespace rg::informer
