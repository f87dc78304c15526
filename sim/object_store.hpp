// Store: kube-sim's storage -- every object of every resource type, one global increasing
// resourceVersion, a bounded per-type event history for watches, and list snapshots that keep
// paginated lists consistent. Thread-safe. In-process controllers subscribe with watch() exactly
// as the HTTP watch handler does.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/object_index.hpp"
#include "sim/owner_index.hpp"
#include "sim/resource_table.hpp"
#include "sim/stored_object.hpp"
#include "sim/watcher.hpp"

namespace rg::sim {

struct StoreOptions {
  std::size_t watch_history = 10000;       ///< events kept per resource type for watch resumes
  std::size_t watcher_capacity = 100000;   ///< pending events before a slow watcher is closed
  std::size_t max_snapshots = 64;          ///< paginated-list snapshots kept (oldest dropped)
  std::chrono::seconds snapshot_ttl{300};  ///< like etcd's 5-minute compaction
};

/// Objects of one type (one namespace or all), sorted by key, as of one resourceVersion. Shares
/// structure with the store: taking one is O(1), whatever the number of objects.
struct ObjectList {
  std::uint64_t resource_version = 0;
  ObjectRange items;
};
using ObjectListPtr = std::shared_ptr<const ObjectList>;

/// What watch() hands back: the subscription, and for a watch that starts with the current
/// state, that state (its resourceVersion is where the event stream continues).
struct WatchStart {
  std::shared_ptr<Watcher> watcher;
  ObjectListPtr initial;  ///< null unless the initial state was asked for
};

class Store {
 public:
  explicit Store(StoreOptions options = {});

  std::uint64_t resource_version() const;

  /// The object, or null.
  ObjectPtr get(const ResourceType& type, std::string_view namespace_, std::string_view name) const;
  /// True while `object` (by uid) is still stored under its name: a controller about to create
  /// dependents of an owner read from a cache checks that the owner was not deleted meanwhile.
  bool holds(const ResourceType& type, const StoredObject& object) const;
  /// The latest state (`namespace_` empty = all namespaces).
  ObjectListPtr list(const ResourceType& type, std::string_view namespace_) const;
  /// The state exactly at `resource_version`: the latest one if the type has not changed since,
  /// else a snapshot kept by keep_snapshot(); null when neither exists (compacted or expired).
  /// Throws 504 when the version is in the future.
  ObjectListPtr list_at(const ResourceType& type, std::string_view namespace_,
                        std::uint64_t resource_version) const;
  /// Keeps the state of `list` (of every namespace) so later pages of a paginated list see it.
  /// O(1): the snapshot shares the index's nodes.
  void keep_snapshot(const ResourceType& type, const ObjectList& list);

  /// Stores a new object. Fills metadata.uid, creationTimestamp, resourceVersion, and the name
  /// from generateName. Throws ApiError AlreadyExists (or Invalid when a name cannot be made).
  /// With `dry_run` (?dryRun=All) nothing is stored: the result is the object as it would be
  /// (no resourceVersion), and no event is sent.
  ObjectPtr create(const ResourceType& type, boost::json::object object, bool dry_run = false);

  /// Read-modify-write under the store lock: `mutate` gets the current object (parsed, with
  /// kind and apiVersion) and returns the new one, or throws ApiError. An unchanged result is a
  /// no-op (same resourceVersion, no event). A result with metadata.deletionTimestamp, no
  /// finalizers and deletionGracePeriodSeconds 0 or absent deletes the object (so does a
  /// terminating pod that is unscheduled or finished); a terminating pod with a grace period
  /// stays until its kubelet deletes it. Throws NotFound when absent.
  using Mutation =
      std::function<boost::json::object(const StoredObject& current, boost::json::object object)>;
  /// With `dry_run` nothing changes: the result is what would be stored (a deletion it would
  /// cause returns the object as mutated).
  ObjectPtr update(const ResourceType& type, std::string_view namespace_, std::string_view name,
                   const Mutation& mutate, bool dry_run = false);
  /// update() where `build` makes the new object from the current one, read-only (the store
  /// makes no copy of it for the mutation). `written`, when given, receives the result as a DOM
  /// (in the write's own memory, so no copy either): what was stored (or would be, with
  /// `dry_run`), or the current object for a no-op.
  using Rewrite = std::function<boost::json::object(const StoredObject& current,
                                                    const boost::json::object& object)>;
  ObjectPtr rewrite(const ResourceType& type, std::string_view namespace_, std::string_view name,
                    const Rewrite& build, bool dry_run = false,
                    std::optional<boost::json::object>* written = nullptr);

  /// Deletes now. `check` (may be empty) sees the current object and may throw (preconditions).
  /// Returns the last state, carrying the deletion's resourceVersion. Throws NotFound.
  ObjectPtr remove(const ResourceType& type, std::string_view namespace_, std::string_view name,
                   const std::function<void(const StoredObject&)>& check = {});

  /// The objects whose metadata.ownerReferences name `owner_uid` (any type, any namespace): the
  /// garbage collector's graph, kept as objects are written.
  std::vector<ObjectPtr> dependents(std::string_view owner_uid) const;

  /// Subscribes to changes of `type` (in `namespace_`, empty = all). Without `from` the watch
  /// starts with the current state (returned as `initial`); with `from` it queues every event
  /// after that resourceVersion. Throws 410 Expired when `from` is older than the history
  /// window and 504 when it is in the future.
  WatchStart watch(const ResourceType& type, std::string_view namespace_,
                   std::optional<std::uint64_t> from);
  void unwatch(const ResourceType& type, const std::shared_ptr<Watcher>& watcher);

  /// Moves every object of `from` to `to` (a CustomResourceDefinition's storage when its
  /// definition changed), each one as `rewrap` makes it, keeping its resourceVersion. As the API
  /// server tears down a custom resource's storage then, `from`'s watches end and its watch
  /// history and list snapshots are forgotten (a resume from before gets 410 Expired).
  void reassign(const ResourceType& from, const ResourceType& to,
                const std::function<ObjectPtr(const ObjectPtr&)>& rewrap);

  /// Fault injection: ends every open watch now.
  void close_all_watchers();
  /// Fault injection: forgets all watch history and list snapshots, so resumes and continue
  /// tokens from before now get 410 Expired.
  void compact();

 private:
  struct Snapshot {
    ObjectIndex objects;
    std::chrono::steady_clock::time_point taken;
  };
  struct TypeState {
    ObjectIndex objects;  // by key, as etcd orders them
    std::deque<StoreEvent> history;
    std::uint64_t compacted = 0;    // events up to this resourceVersion are forgotten
    std::uint64_t last_change = 0;  // resourceVersion of the newest event
    std::vector<std::shared_ptr<Watcher>> watchers;
    std::map<std::uint64_t, Snapshot> snapshots;  // by resourceVersion
  };

  TypeState& state(const ResourceType& type);
  const TypeState* find_state(const ResourceType& type) const;
  void publish(TypeState& state, StoreEvent event) const;
  std::string new_uid();
  ObjectPtr remove_locked(const ResourceType& type, TypeState& state, const ObjectPtr& current,
                          std::optional<boost::json::object>* written = nullptr);

  StoreOptions options_;
  mutable std::shared_mutex mutex_;
  std::uint64_t resource_version_ = 0;
  std::unordered_map<const ResourceType*, TypeState> types_;
  OwnerIndex owners_;  // keyed by stored types, as types_
  /// Namespaces that existed and were deleted (until made again): nothing may be created in
  /// them, as the NamespaceLifecycle admission plugin refuses content for a missing namespace.
  std::unordered_set<std::string> deleted_namespaces_;
  std::mt19937_64 random_;
};

}  // namespace rg::sim
