// The consumer side of a SharedIndexInformer: HandleDeltas (pop a key's deltas, update the
// Indexer first, then notify the handlers) and AddEventHandler. A SharedIndexInformer is this
// plus a Reflector feeding the DeltaFIFO and a loop calling
// `fifo.pop([&](auto&& deltas, bool initial) { handler.handle_deltas(std::move(deltas), initial);
// })`.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "informer/delta.hpp"
#include "informer/detail/shared_processor.hpp"
#include "informer/event_handler.hpp"
#include "informer/indexer.hpp"

namespace rg::informer::detail {

/// client-go's processDeltas: applies one key's deltas, oldest first, to `store`, and tells
/// `handler` (on_add / on_update / on_delete with the stored objects) after each change.
/// Sync, Replaced, Added and Updated become an update when the key is cached, an add when not.
template <KubeObject T, class Handler>
void process_deltas(Handler& handler, Indexer<T>& store, Deltas<T>&& deltas,
                    bool is_in_initial_list) {
  for (Delta<T>& delta : deltas) {
    if (delta.type == DeltaType::kDeleted) {
      store.remove(key_of<T>(delta.object));
      handler.on_delete(delta.object);
      continue;
    }
    auto* object = std::get_if<std::shared_ptr<const T>>(&delta.object);
    if (!object || !*object) {
      throw std::invalid_argument(std::string("a ") + std::string(to_string(delta.type)) +
                                  " delta must carry an object (only Deleted may be a tombstone)");
    }
    // One lookup for client-go's Get then Update or Add (only this consumer writes the store).
    auto [previous, stored] = store.add_or_update(std::move(*object));
    if (previous) {
      handler.on_update(previous, stored);
    } else {
      handler.on_add(stored, is_in_initial_list);
    }
  }
}

template <KubeObject T>
class DeltaHandler {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  DeltaHandler(Indexer<T>& indexer, SharedProcessor<T>& processor)
      : indexer_(indexer), processor_(processor) {}

  /// DeltaFIFO::pop's process function.
  void handle_deltas(Deltas<T>&& deltas, bool is_in_initial_list) {
    std::lock_guard lock(block_deltas_);
    process_deltas(*this, indexer_, std::move(deltas), is_in_initial_list);
  }

  /// Registers a handler. It first receives the objects already cached as adds (with
  /// is_in_initial_list = true), then every later change; no change is missed or doubled
  /// because deltas are held back meanwhile.
  /// `max_pending`: see HandlerOptions.
  std::shared_ptr<ProcessorListener<T>> add_event_handler(
      std::string name, ResourceEventHandlerFuncs<T> handler,
      std::chrono::steady_clock::duration resync_period = {}, std::size_t max_pending = 0) {
    std::lock_guard lock(block_deltas_);
    auto listener = processor_.add_listener(std::move(name), std::move(handler), resync_period,
                                            {.max_pending = max_pending});
    for (auto& object : indexer_.list()) {
      listener->add(AddNotification<T>{std::move(object), true});
    }
    return listener;
  }

  // The Handler interface of process_deltas.
  void on_add(const ObjectPtr& object, bool is_in_initial_list) {
    processor_.distribute(AddNotification<T>{object, is_in_initial_list}, false);
  }

  /// An update that did not change the resourceVersion is a resync (a Sync delta, or a relist
  /// of an unchanged object): only handlers that asked for resyncs get it.
  void on_update(const ObjectPtr& old_object, const ObjectPtr& new_object) {
    const bool is_resync =
        meta::resource_version(*old_object) == meta::resource_version(*new_object);
    processor_.distribute(UpdateNotification<T>{old_object, new_object}, is_resync);
  }

  void on_delete(const ObjectOrTombstone<T>& object) {
    processor_.distribute(DeleteNotification<T>{object}, false);
  }

 private:
  Indexer<T>& indexer_;
  SharedProcessor<T>& processor_;
  std::mutex block_deltas_;
};

}  // namespace rg::informer::detail
