// ResourceEventHandlerFuncs: what a user registers on an informer (OnAdd / OnUpdate / OnDelete),
// and the notifications the informer fans out to each registered handler.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "informer/delta.hpp"
#include "informer/object_key.hpp"

namespace rg::informer {

/// Callbacks run on the informer's io_context, one handler's callbacks one at a time and in
/// order. Keep them light (map to keys, add to a workqueue). Any of them may be empty.
/// The objects are the cached ones: shared and immutable.
template <KubeObject T>
struct ResourceEventHandlerFuncs {
  /// `is_in_initial_list`: the object came from the initial list (or, for a handler added
  /// later, from the cache contents it is first given).
  std::function<void(const std::shared_ptr<const T>& object, bool is_in_initial_list)> on_add{};
  /// Also called for resyncs and for relisted objects that were cached (old and new may then
  /// have the same resourceVersion).
  std::function<void(const std::shared_ptr<const T>& old_object,
                     const std::shared_ptr<const T>& new_object)>
      on_update{};
  /// The final state, or a DeletedFinalStateUnknown tombstone when the delete was missed.
  std::function<void(const ObjectOrTombstone<T>& object)> on_delete{};
};

/// How a handler is registered (client-go's HandlerOptions, and an opt-in bound).
struct HandlerOptions {
  /// How often the handler is given every cached object again, as on_update with the same
  /// object (a resync); zero: never; positive: at least one second. Unset: the informer's
  /// default (SharedInformerFactoryOptions::default_resync_period, zero unless set).
  std::optional<std::chrono::steady_clock::duration> resync_period;
  /// Notifications the handler may have pending before the informer waits for it; 0: unbounded
  /// (the default). A bounded handler that falls behind stalls the informer and with it every
  /// other handler of that informer: see processor_listener.hpp.
  std::size_t max_pending = 0;
};

/// One handler's backlog and work so far (the informer_handler_* metrics).
struct HandlerStats {
  std::string handler;
  std::size_t pending = 0;      ///< notifications buffered or being delivered
  std::uint64_t delivered = 0;  ///< notifications handed to the handler
  std::uint64_t failures = 0;   ///< callbacks that threw
};

template <KubeObject T>
struct AddNotification {
  std::shared_ptr<const T> object;
  bool is_in_initial_list = false;
};

template <KubeObject T>
struct UpdateNotification {
  std::shared_ptr<const T> old_object;
  std::shared_ptr<const T> new_object;
};

template <KubeObject T>
struct DeleteNotification {
  ObjectOrTombstone<T> object;
};

template <KubeObject T>
using Notification = std::variant<AddNotification<T>, UpdateNotification<T>, DeleteNotification<T>>;

}  // namespace rg::informer
