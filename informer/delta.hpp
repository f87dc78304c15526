// Deltas: what happened to one object while it waited in the DeltaFIFO, and the
// DeletedFinalStateUnknown tombstone a relist leaves for a delete the watch missed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "informer/object_key.hpp"

namespace rg::informer {

/// The kinds of change, named as in client-go.
enum class DeltaType {
  kAdded,
  kUpdated,
  kDeleted,
  kReplaced,  ///< the object was in a (re)list; it may or may not have changed
  kSync,      ///< a periodic resync of an object already cached
};

std::string_view to_string(DeltaType type);

/// Left for an object that vanished while the watch was down: it was deleted, but its final
/// state is unknown. `object` is the last state the cache knew (null if it knew none).
template <KubeObject T>
struct DeletedFinalStateUnknown {
  std::string key;
  std::shared_ptr<const T> object;
};

/// What a Deleted delta (and OnDelete) carries: the deleted object, or a tombstone.
template <KubeObject T>
using ObjectOrTombstone = std::variant<std::shared_ptr<const T>, DeletedFinalStateUnknown<T>>;

/// The object inside (for a tombstone: its last known state, possibly null).
template <KubeObject T>
const std::shared_ptr<const T>& object_of(const ObjectOrTombstone<T>& value) {
  if (const auto* tombstone = std::get_if<DeletedFinalStateUnknown<T>>(&value)) {
    return tombstone->object;
  }
  return std::get<std::shared_ptr<const T>>(value);
}

/// The cache key (for a tombstone: the key it was recorded under).
template <KubeObject T>
std::string key_of(const ObjectOrTombstone<T>& value) {
  if (const auto* tombstone = std::get_if<DeletedFinalStateUnknown<T>>(&value)) {
    return tombstone->key;
  }
  return meta_namespace_key(*std::get<std::shared_ptr<const T>>(value));
}

template <KubeObject T>
bool is_tombstone(const ObjectOrTombstone<T>& value) {
  return std::holds_alternative<DeletedFinalStateUnknown<T>>(value);
}

template <KubeObject T>
struct Delta {
  DeltaType type;
  ObjectOrTombstone<T> object;
};

/// Oldest first. Never empty when popped from a DeltaFIFO.
template <KubeObject T>
using Deltas = std::vector<Delta<T>>;

}  // namespace rg::informer
