// DeltaFIFO: the queue between the Reflector (producer) and the informer's processing loop
// (consumer), with client-go's semantics:
//  - one queue slot per key; the key's deltas accumulate while it waits (oldest first), so a key
//    changed three times is popped once and its consumer sees every change, ending at the latest
//    state; two consecutive Deleted deltas collapse into one (the one that is not a tombstone);
//  - replace() (a relist) queues Replaced deltas and, for every key known (queued, or in the
//    cache through KnownObjects) but absent from the list, a Deleted DeletedFinalStateUnknown
//    tombstone carrying the last known state;
//  - resync() queues Sync deltas for cached keys that have nothing queued;
//  - a delete of a key neither queued nor cached is ignored (it was already reported);
//  - forget(key) (a watch event whose projection failed, see projection.hpp) queues a Deleted
//    tombstone with the key's last known state, like a relist that lacks the key;
//  - has_synced() once the items of the first replace() have all been popped
//    (initialPopulationCount); any add/update/remove before it counts as "populated" too.
//
// The first list, when nothing is queued or cached yet and no two of its objects share a key (an
// API server's list never repeats one), is kept as it came and popped in its order: no table
// slot, queued key or deltas block per object, which is most of a large initial sync's queueing
// work. Any later producer call (add, update, remove, forget, replace, resync) first moves what
// is left of it into the table, so they all see one representation; size(), list_keys() and
// get_by_key() read it where it is.
//
// Unlike client-go it is bounded: when `capacity` deltas are queued, producers wait
// (co_await) for the consumer, which pushes back on the Reflector -- it stops reading its
// stream -- instead of growing without limit or dropping. replace() and resync() wait for room
// and then queue their whole batch at once (they stay atomic; the batch is already in memory).
//
// Producer and consumer may run on different threads / io_contexts.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "async/condition.hpp"
#include "informer/delta.hpp"
#include "informer/detail/known_objects.hpp"
#include "informer/indexer.hpp"
#include "informer/object_key.hpp"

namespace rg::informer {

template <KubeObject T>
class DeltaFIFO {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  /// A queued key: `namespace/name`, inline up to 39 characters (no heap block per key).
  using Key = detail::StoreKey;

  struct Options {
    /// Queued deltas (over all keys) at which producers start to wait. Must be > 0.
    std::size_t capacity = 100'000;
    /// The cache the consumer fills (normally the Indexer); may be null (then relists detect
    /// deletions only among queued keys, and resync() does nothing). Must outlive the FIFO.
    const detail::KnownObjects<T>* known_objects = nullptr;
    /// Replaced deltas for relists (client-go's EmitDeltaTypeReplaced); false queues Sync.
    bool emit_delta_type_replaced = true;
    /// Told, with the FIFO locked, the number of distinct keys each replace() queued, before any
    /// of them is popped: the cache they are popped into can make room for a whole list at once
    /// instead of growing by rehashing key by key (the informer reserves its Indexer). May be
    /// empty.
    std::function<void(std::size_t listed_keys)> size_hint = {};
  };

  explicit DeltaFIFO(Options options) : options_(options), not_empty_(mutex_), not_full_(mutex_) {
    if (options_.capacity == 0) {
      throw std::invalid_argument("DeltaFIFO capacity must be at least 1");
    }
  }

  DeltaFIFO(const DeltaFIFO&) = delete;
  DeltaFIFO& operator=(const DeltaFIFO&) = delete;

  /// Queue an Added / Updated / Deleted delta, waiting while the FIFO is full. Returns false
  /// (and queues nothing) once the FIFO is closed. Throws std::invalid_argument for a null or
  /// unnamed object.
  boost::asio::awaitable<bool> add(ObjectPtr object) {
    return push(DeltaType::kAdded, std::move(object));
  }
  boost::asio::awaitable<bool> update(ObjectPtr object) {
    return push(DeltaType::kUpdated, std::move(object));
  }
  boost::asio::awaitable<bool> remove(ObjectPtr object) {
    return push(DeltaType::kDeleted, std::move(object));
  }

  /// The object under `key` can no longer be mirrored (its projection failed): queues a Deleted
  /// DeletedFinalStateUnknown tombstone carrying its last known state (queued, else cached),
  /// as a relist does for a key it lacks. A key neither queued nor cached is ignored. Returns
  /// false once the FIFO is closed.
  boost::asio::awaitable<bool> forget(std::string key) {
    return when_room([this, key = std::move(key)]() mutable {
      spill_first_list_locked();
      if (ObjectPtr last = last_known_locked(key); last || items_.contains(key)) {
        queue_action_locked(DeltaType::kDeleted, DeletedFinalStateUnknown<T>{key, std::move(last)},
                            key);
      }
    });
  }

  /// A relist: see the header comment. `resource_version` is the list's (kept for symmetry with
  /// Indexer::replace; the FIFO does not need it).
  boost::asio::awaitable<bool> replace(std::vector<ObjectPtr> list, std::string resource_version) {
    (void)resource_version;
    // The keys are made here, before waiting and outside the lock; for what may be the first
    // list, only to check that they are distinct (it may then be kept as it came).
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      first = !populated_;
    }
    std::vector<std::pair<Key, ObjectPtr>> keyed;
    if (!first || !keys_distinct(list)) keyed = with_keys(std::move(list));
    bool accepted = false;
    auto try_now = [&] {
      if (closed_) return true;
      if (delta_count_ >= options_.capacity) return false;
      replace_locked(list, keyed);
      accepted = true;
      return true;
    };
    co_await not_full_.until(try_now);
    co_return accepted;
  }

  /// Queue a Sync delta for every cached key with nothing queued.
  boost::asio::awaitable<bool> resync() {
    bool accepted = false;
    auto try_now = [&] {
      if (closed_) return true;
      if (delta_count_ >= options_.capacity) return false;
      resync_locked();
      accepted = true;
      return true;
    };
    co_await not_full_.until(try_now);
    co_return accepted;
  }

  /// Waits for a key, removes it with all its deltas and calls
  /// `process(Deltas<T>&&, bool is_in_initial_list)` with the FIFO locked (so the cache it
  /// updates stays consistent with replace()/resync(); keep it short: no I/O, no waiting).
  /// Keys still queued at close() are popped; returns false once closed and empty.
  /// An exception from `process` propagates (the key is consumed).
  template <class Process>
  boost::asio::awaitable<bool> pop(Process process) {
    bool popped = false;
    std::exception_ptr failure;
    auto try_now = [&] {
      if (queue_.empty() && first_list_.empty()) return closed_;
      const bool is_in_initial_list = !has_synced_locked();
      // The queue comes first: it is empty while the first list is kept, unless moving the list
      // into it failed midway (see spill_first_list_locked).
      Deltas<T> deltas = queue_.empty() ? next_of_first_list_locked() : next_queued_locked();
      if (initial_population_count_ > 0) --initial_population_count_;
      delta_count_ -= deltas.size();
      not_full_.notify_all_locked();
      popped = true;
      try {
        process(std::move(deltas), is_in_initial_list);
      } catch (...) {
        failure = std::current_exception();
      }
      keep_spare_locked(std::move(deltas));
      return true;
    };
    co_await not_empty_.until(try_now);
    if (failure) std::rethrow_exception(failure);
    co_return popped;
  }

  /// Stops accepting deltas and wakes every waiter: producers return false, consumers drain
  /// what is queued and then return false.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all_locked();
    not_full_.notify_all_locked();
  }

  bool is_closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

  /// True once the first replace()'s items have all been popped (or a plain add/update/remove
  /// came first and everything queued before has been popped).
  bool has_synced() const {
    std::lock_guard lock(mutex_);
    return has_synced_locked();
  }

  /// Queued keys.
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return queue_.size() + (first_list_.size() - first_list_next_);
  }

  /// Queued deltas over all keys (what `capacity` bounds).
  std::size_t delta_count() const {
    std::lock_guard lock(mutex_);
    return delta_count_;
  }

  /// Queued keys in pop order.
  std::vector<std::string> list_keys() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> keys(queue_.begin(), queue_.end());
    for (std::size_t i = first_list_next_; i < first_list_.size(); ++i)
      keys.emplace_back(key_view(first_list_[i]));
    return keys;
  }

  /// A copy of the deltas queued for `key`, if any (a key of the kept first list is looked up
  /// by scanning it).
  std::optional<Deltas<T>> get_by_key(std::string_view key) const {
    std::lock_guard lock(mutex_);
    if (auto it = items_.find(key); it != items_.end()) return it->second;
    for (std::size_t i = first_list_next_; i < first_list_.size(); ++i) {
      if (key_view(first_list_[i]) == key) return Deltas<T>{{replaced_type(), first_list_[i]}};
    }
    return std::nullopt;
  }

 private:
  // Open addressing: a key's slot holds its deltas, so a pop reads the table's group and slot
  // only (libstdc++'s map read a bucket, the node before and the node), and queueing a new key
  // allocates no node: an initial list's 100k nodes were left as holes between the cached
  // objects (0.08 KB of steady RSS per cached pod).
  using Items =
      boost::unordered_flat_map<Key, Deltas<T>, detail::StoreKeyHash, detail::StringEqual>;

  static std::vector<std::pair<Key, ObjectPtr>> with_keys(std::vector<ObjectPtr> list) {
    std::vector<std::pair<Key, ObjectPtr>> keyed;
    keyed.reserve(list.size());
    for (auto& object : list) {
      Key key = key_for(object);
      keyed.emplace_back(std::move(key), std::move(object));
    }
    return keyed;
  }

  static Key key_for(const ObjectPtr& object) { return Key(key_view(object)); }

  // The object's key, built in a per-thread buffer that keeps its capacity (so it allocates
  // nothing) and valid until the next call. Throws for a null or unnamed object.
  static std::string_view key_view(const ObjectPtr& object) {
    if (!object) throw std::invalid_argument("cannot queue a null object in the DeltaFIFO");
    thread_local std::string scratch;
    assign_meta_namespace_key(scratch, *object);
    return scratch;
  }

  // True when no two objects of `list` share a key, told by the keys' hashes (a collision of two
  // distinct keys reads as a repeat, which only costs keeping the list as it came). Throws as
  // key_view does.
  static bool keys_distinct(const std::vector<ObjectPtr>& list) {
    boost::unordered_flat_set<std::size_t> hashes;
    hashes.reserve(list.size());
    for (const ObjectPtr& object : list) {
      if (!hashes.insert(detail::StoreKeyHash{}(key_view(object))).second) return false;
    }
    return true;
  }

  boost::asio::awaitable<bool> push(DeltaType type, ObjectPtr object) {
    Key key = key_for(object);  // throws for a null or unnamed object, before waiting
    return when_room([this, type, object = std::move(object), key = std::move(key)]() mutable {
      spill_first_list_locked();
      if (type == DeltaType::kDeleted && !is_known_locked(key)) return;  // already gone
      queue_action_locked(type, std::move(object), std::move(key));
    });
  }

  // Waits for room, then runs `queue` (with the lock held) and counts the FIFO as populated
  // once it returned (a change that threw while queueing populated nothing). False, and nothing
  // run, once the FIFO is closed.
  template <class Queue>
  boost::asio::awaitable<bool> when_room(Queue queue) {
    bool accepted = false;
    auto try_now = [&] {
      if (closed_) return true;
      if (delta_count_ >= options_.capacity) return false;
      queue();
      populated_ = true;
      accepted = true;
      return true;
    };
    {
      // Room now, the common case: done without the frame of a wait (a heap block per watch
      // event, as the Reflector's frames already fill Asio's per-thread cache of two).
      std::lock_guard lock(mutex_);
      if (try_now()) co_return accepted;
    }
    co_await not_full_.until(try_now);
    co_return accepted;
  }

  bool has_synced_locked() const { return populated_ && initial_population_count_ == 0; }

  bool is_known_locked(std::string_view key) const {
    if (items_.contains(key)) return true;
    return options_.known_objects && options_.known_objects->get_by_key(key) != nullptr;
  }

  // The newest queued state of `key`, else the cached one; null if neither.
  ObjectPtr last_known_locked(std::string_view key) const {
    if (auto it = items_.find(key); it != items_.end())
      return object_of<T>(it->second.back().object);
    if (const detail::KnownObjects<T>* known = options_.known_objects)
      return known->get_by_key(key);
    return nullptr;
  }

  DeltaType replaced_type() const {
    return options_.emit_delta_type_replaced ? DeltaType::kReplaced : DeltaType::kSync;
  }

  // The front key's deltas, taken out of the table and the queue.
  Deltas<T> next_queued_locked() {
    auto it = items_.find(queue_.front());
    Deltas<T> deltas = std::move(it->second);
    items_.erase(it);
    queue_.pop_front();
    // A drained list's table (a slot holds a key and a deltas vector: ~8 MB for 100k keys)
    // goes, or it would stay beside the cache for good.
    if (items_.empty() && items_.bucket_count() > kKeptSlots) items_ = Items();
    return deltas;
  }

  // The first list's next object as its key's deltas: one Replaced delta, in a spare block.
  Deltas<T> next_of_first_list_locked() {
    Deltas<T> deltas = take_spare_locked();
    deltas.reserve(1);  // a failed allocation takes nothing out of the list
    deltas.push_back(Delta<T>{replaced_type(), std::move(first_list_[first_list_next_++])});
    if (first_list_next_ == first_list_.size()) clear_first_list_locked();
    return deltas;
  }

  // Moves what is left of the first list into the table and the queue, in its order, before
  // anything else reads or changes them. An allocation failing midway leaves the objects not
  // yet moved in the list, popped after the ones moved.
  void spill_first_list_locked() {
    if (first_list_.empty()) return;
    items_.reserve(items_.size() + (first_list_.size() - first_list_next_));
    for (; first_list_next_ < first_list_.size(); ++first_list_next_) {
      ObjectPtr& object = first_list_[first_list_next_];
      queue_action_locked(replaced_type(), object, key_for(object));
      --delta_count_;  // counted when the list was kept
      object.reset();
    }
    clear_first_list_locked();
  }

  void clear_first_list_locked() {
    first_list_ = {};
    first_list_next_ = 0;
  }

  // A popped key's emptied deltas block if one is kept, else an empty one.
  Deltas<T> take_spare_locked() {
    if (spare_deltas_.empty()) return {};
    Deltas<T> deltas = std::move(spare_deltas_.back());
    spare_deltas_.pop_back();
    return deltas;
  }

  // Appends a delta to `key`'s, queueing the key if it is new (with a spare deltas block).
  // A key in the table is always queued and has a delta: when an allocation fails (the table's,
  // the delta list's or the queue's), the new key's entry goes again and the exception leaves
  // the FIFO as it was, rather than with a key that is never popped or popped without deltas.
  void queue_action_locked(DeltaType type, ObjectOrTombstone<T> object, Key key) {
    auto [it, inserted] = items_.try_emplace(key);
    Deltas<T>& deltas = it->second;
    if (!inserted) {
      deltas.push_back(Delta<T>{type, std::move(object)});
    } else {
      try {
        deltas = take_spare_locked();
        deltas.push_back(Delta<T>{type, std::move(object)});
        queue_.push_back(std::move(key));
      } catch (...) {
        items_.erase(it);
        throw;
      }
    }
    ++delta_count_;
    dedup_last_two(deltas);
    not_empty_.notify_all_locked();
  }

  // Keeps a popped key's deltas block for a key queued later: in a watch, keys come and go one
  // for one, so queueing an event then allocates nothing.
  void keep_spare_locked(Deltas<T>&& deltas) {
    if (spare_deltas_.size() == kSpareDeltas || deltas.capacity() == 0) return;
    deltas.clear();                     // the objects go now
    if (deltas.capacity() > 4) return;  // a burst's block goes too
    spare_deltas_.push_back(std::move(deltas));
  }

  // Two consecutive deletions are one: keep the newer unless it is a tombstone.
  void dedup_last_two(Deltas<T>& deltas) {
    const std::size_t n = deltas.size();
    if (n < 2) return;
    Delta<T>& older = deltas[n - 2];
    Delta<T>& newer = deltas[n - 1];
    if (older.type != DeltaType::kDeleted || newer.type != DeltaType::kDeleted) return;
    if (!is_tombstone<T>(newer.object)) older = std::move(newer);
    deltas.pop_back();
    --delta_count_;
  }

  // `list` is the list when replace() found its keys distinct, else `keyed` is.
  void replace_locked(std::vector<ObjectPtr>& list, std::vector<std::pair<Key, ObjectPtr>>& keyed) {
    std::vector<std::string> known_keys;
    if (const detail::KnownObjects<T>* known = options_.known_objects)
      known_keys = known->list_keys();
    if (!list.empty()) {
      // Kept as it came if it is the first list and nothing is queued or cached.
      if (!populated_ && items_.empty() && known_keys.empty())
        return keep_first_list_locked(std::move(list));
      keyed = with_keys(std::move(list));  // something was queued or cached since replace() looked
    }
    spill_first_list_locked();  // a relist while the first list is being popped
    const DeltaType type = replaced_type();
    // The keys known before the list (queued or cached) that it lacks vanished meanwhile. An
    // initial list has none: then no set of the listed keys is built (a sync of 100k objects
    // would leave its nodes as holes between the cached objects).
    const bool may_vanish = !items_.empty() || !known_keys.empty();
    std::unordered_set<std::string_view, detail::StringHash, detail::StringEqual> listed;
    if (may_vanish) listed.reserve(keyed.size());
    const std::size_t queued_before = items_.size();
    items_.reserve(queued_before + keyed.size());  // one table for the whole list, no rehashes
    for (auto& [key, object] : keyed) {
      queue_action_locked(type, std::move(object), key);
      if (may_vanish) listed.insert(key.view());
    }

    // Distinct listed keys (a list may name a key twice).
    const std::size_t listed_count = may_vanish ? listed.size() : items_.size() - queued_before;
    if (options_.size_hint) options_.size_hint(listed_count);
    std::size_t queued_deletions = 0;
    std::vector<std::pair<std::string, ObjectPtr>> vanished;
    if (may_vanish) {
      for (const auto& [key, deltas] : items_) {
        if (listed.contains(key)) continue;
        vanished.emplace_back(key, object_of<T>(deltas.back().object));
      }
    }
    for (auto& key : known_keys) {
      if (listed.contains(key) || items_.contains(key)) continue;
      ObjectPtr last = options_.known_objects->get_by_key(key);
      vanished.emplace_back(std::move(key), std::move(last));
    }
    for (auto& [key, last] : vanished) {
      ++queued_deletions;
      queue_action_locked(DeltaType::kDeleted, DeletedFinalStateUnknown<T>{key, std::move(last)},
                          key);
    }

    if (!populated_) {
      populated_ = true;
      initial_population_count_ = listed_count + queued_deletions;
    }
  }

  void keep_first_list_locked(std::vector<ObjectPtr> list) {
    first_list_ = std::move(list);
    first_list_next_ = 0;
    delta_count_ += first_list_.size();
    if (options_.size_hint) options_.size_hint(first_list_.size());
    populated_ = true;
    initial_population_count_ = first_list_.size();
    not_empty_.notify_all_locked();
  }

  void resync_locked() {
    const detail::KnownObjects<T>* known = options_.known_objects;
    if (!known) return;
    spill_first_list_locked();
    for (auto& key : known->list_keys()) {
      if (items_.contains(key)) continue;  // a queued delta carries newer state than the cache
      if (ObjectPtr object = known->get_by_key(key)) {
        queue_action_locked(DeltaType::kSync, std::move(object), std::move(key));
      }
    }
  }

  // At most as many spare deltas blocks as keys one watch read queues at once (a 256 KiB read of
  // small objects), of up to 4 deltas each.
  static constexpr std::size_t kSpareDeltas = 256;
  // An empty table above this many slots (~256 KiB) is freed.
  static constexpr std::size_t kKeptSlots = 4096;

  Options options_;
  mutable std::mutex mutex_;
  Items items_;
  std::deque<Key> queue_;  // the keys of items_ in pop order (copies: the table moves its slots)
  std::vector<Deltas<T>> spare_deltas_;  // popped keys' emptied blocks, kept for new keys
  std::vector<ObjectPtr> first_list_;    // kept as it came; popped from first_list_next_ on
  std::size_t first_list_next_ = 0;
  std::size_t delta_count_ = 0;
  bool populated_ = false;
  std::size_t initial_population_count_ = 0;
  bool closed_ = false;
  async::Condition not_empty_;
  async::Condition not_full_;
};

}  // namespace rg::informer
