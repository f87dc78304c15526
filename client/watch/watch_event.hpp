// WatchEvent: one event of a Kubernetes watch stream, with its object decoded into T (a typed
// projection or Unstructured). Objects are shared and immutable, ready for an informer's cache.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "client/rest/status.hpp"

namespace rg::client {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

/// The wire name: "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR".
std::string_view to_string(WatchEventType type);
/// The type for a wire name, nullopt for anything else.
std::optional<WatchEventType> parse_watch_event_type(std::string_view name);

/// The annotation a BOOKMARK carries (value "true") when it ends the initial events of a
/// watch-list (sendInitialEvents=true).
inline constexpr std::string_view kInitialEventsEndAnnotation = "k8s.io/initial-events-end";

template <class T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  /// Every type but Error. A Bookmark's object carries only metadata.resourceVersion (and
  /// annotations).
  std::shared_ptr<const T> object;
  /// Error only: the Status the server sent (e.g. code 410, reason "Expired").
  std::shared_ptr<const Status> status;
};

}  // namespace rg::client
