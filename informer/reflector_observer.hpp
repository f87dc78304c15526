// ReflectorObserver: what a Reflector reports as it works (lists, watches, events, items,
// relists, health, cache consistency checks), for metrics. The default does nothing;
// informer_metrics.hpp exports them to Prometheus with fixed label sets.
#pragma once

#include <cstddef>
#include <string_view>

#include "client/watch/watch_event.hpp"
#include "informer/reflector_state.hpp"

namespace rg::informer {

class ReflectorObserver {
 public:
  virtual ~ReflectorObserver() = default;
  /// A LIST request (one page) is sent.
  virtual void on_list() {}
  /// A relist (paginated or streaming) after the first sync begins -- once per round, however
  /// many attempts it takes -- and why: "expired", "watch_list_fallback", "error".
  virtual void on_relist(std::string_view /*reason*/) {}
  /// A WATCH request is sent.
  virtual void on_watch() {}
  /// A watch event arrived (every type but ERROR).
  virtual void on_event(client::WatchEventType /*type*/) {}
  /// Objects received: a LIST page's items, or the objects of the ADDED, MODIFIED and DELETED
  /// events of one read of a watch stream (a streaming list's initial events included; never
  /// bookmarks).
  virtual void on_items(std::size_t /*count*/) {}
  /// A complete (re)list of `count` objects replaced the store.
  virtual void on_list_synced(std::size_t /*count*/) {}
  /// A request failed (the health says how: forbidden, unauthorized, throttled, failing), or the
  /// reflector recovered (healthy).
  virtual void on_health(reflector::Health /*health*/) {}
  /// An object was left out of the cache because its projection failed (projection.hpp).
  virtual void on_projection_failure() {}
  /// A cache consistency check completed, confirming `inconsistencies` differing objects.
  virtual void on_consistency_check(std::size_t /*inconsistencies*/) {}
};

}  // namespace rg::informer
