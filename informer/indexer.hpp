// Indexer: the informer's thread-safe local cache, keyed "namespace/name", with named secondary
// indexes (client-go's ThreadSafeStore + Indexer).
//
// Objects are stored as std::shared_ptr<const T>: readers share the cached object and can never
// mutate it (assigning through the pointer does not compile), which rules out the classic
// "handler edited the cached object" bug. Copy the object to change it.
//
// Readers take a shared lock; writers an exclusive one. Index maintenance on add/update/remove
// touches only the index values of the changed object. An index refers to objects by the address
// of their entry in the store (node-stable), so each key is held once however many indexes there
// are, an index set hashes and compares addresses (never a key's bytes, also when it rehashes),
// and a reader goes from an index straight to the object.
// Every write runs the transform hook first (e.g. to drop metadata.managedFields from unstructured
// objects); typed projections need none.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/unordered/unordered_flat_set.hpp>
#include <boost/unordered/unordered_map.hpp>

#include "client/model/compact_string.hpp"
#include "informer/detail/known_objects.hpp"
#include "informer/index_funcs.hpp"
#include "informer/object_key.hpp"

namespace rg::informer {

namespace detail {
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
/// Compares any two string-likes as std::string_view (std::equal_to<> would need an
/// operator== of two CompactStrings, which clang finds ambiguous through their conversions).
struct StringEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, StringEqual>;
/// StringHash for the store's keys (the Indexer's and the DeltaFIFO's tables).
struct StoreKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
/// A store key: `namespace/name` inline up to 39 characters (most keys), so a lookup compares
/// the key in the node it has already read instead of reading a separate heap block, a cache
/// miss per watch event.
using StoreKey = client::BasicCompactString<40>;
/// The store: Boost's closed-addressing map, whose bucket points at the bucket's first node
/// (libstdc++'s points at the node before it, in another bucket), so looking up a cached key
/// reads the bucket and the node: a watch event's lookup of the pod it replaces took three or four
/// cache misses (bucket, node before, the node's hash and key on two lines), now two. A node
/// (next pointer, key, object pointer) is 64 bytes; nodes stay put, so the indexes can hold
/// their addresses.
template <class V>
using KeyMap = boost::unordered_map<StoreKey, V, StoreKeyHash, StringEqual>;
}  // namespace detail

/// Runs on every object before it is stored; returns the object to store (may be the same).
template <KubeObject T>
using TransformFunc = std::function<std::shared_ptr<const T>(std::shared_ptr<const T>)>;

template <KubeObject T>
class Indexer final : public detail::KnownObjects<T> {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  explicit Indexer(Indexers<T> indexers = default_indexers<T>(), TransformFunc<T> transform = {})
      : indexers_(std::make_shared<const Indexers<T>>(std::move(indexers))),
        transform_(std::move(transform)) {
    for (const auto& [name, func] : *indexers_) indices_[name];
    plan_writes();
  }

  Indexer(const Indexer&) = delete;
  Indexer& operator=(const Indexer&) = delete;

  /// Adds index functions (the existing contents are indexed at once). Throws
  /// std::invalid_argument if a name is already registered; nothing is added then.
  void add_indexers(Indexers<T> more) {
    std::unique_lock lock(mutex_);
    for (const auto& [name, func] : more) {
      if (indexers_->contains(name)) {
        throw std::invalid_argument("indexer '" + name +
                                    "' is already registered; choose another index name");
      }
    }
    Indexers<T> merged = *indexers_;
    detail::StringMap<Index> built;
    for (auto& [name, func] : more) {
      Index& index = built[name];
      for (const Entry& entry : items_) {
        for (auto& value : func(*entry.second)) index[value].insert(&entry);
      }
    }
    for (auto& [name, func] : more) merged.emplace(name, std::move(func));
    for (auto& [name, index] : built) indices_.emplace(name, std::move(index));
    indexers_ = std::make_shared<const Indexers<T>>(std::move(merged));
    plan_writes();
  }

  /// Inserts or replaces the object under its key; returns the stored (transformed) object.
  /// Throws std::invalid_argument for a null object or one without metadata.name; an index
  /// function that throws leaves the store unchanged.
  ObjectPtr add(ObjectPtr object) { return upsert(std::move(object)).stored; }
  ObjectPtr update(ObjectPtr object) { return upsert(std::move(object)).stored; }

  /// What add_or_update found under the key (null if nothing) and what it stored there.
  struct Upserted {
    ObjectPtr previous;
    ObjectPtr stored;
  };
  /// add() or update() with one key lookup, returning the object replaced too (what a Get
  /// before the write would return): the informer's HandleDeltas uses it to tell an add from
  /// an update. Throws as add() does.
  Upserted add_or_update(ObjectPtr object) { return upsert(std::move(object)); }

  /// Makes room for `objects` cached objects at once (a list about to be stored key by key, as
  /// the informer's DeltaFIFO announces), so the store does not grow by rehashing on the way
  /// (Go's make(map, n)). Never shrinks it.
  void reserve(std::size_t objects) {
    std::unique_lock lock(mutex_);
    if (static_cast<float>(objects) >
        static_cast<float>(items_.bucket_count()) * items_.max_load_factor())
      items_.reserve(objects);
  }

  /// Removes the object under `key`; returns it (null if there was none).
  ObjectPtr remove(std::string_view key) {
    std::unique_lock lock(mutex_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    ObjectPtr old = std::move(it->second);
    unindex(&*it, *old);  // before the entry the indexes point at goes
    items_.erase(it);
    return old;
  }

  /// Atomically replaces the whole contents (a relist). Readers see the old or the new contents,
  /// never a mix. Later duplicates of a key win.
  void replace(std::vector<ObjectPtr> objects, std::string resource_version) {
    detail::KeyMap<ObjectPtr> items;
    items.reserve(objects.size());
    for (auto& object : objects) {
      object = prepare(std::move(object));
      std::string key = meta_namespace_key(*object);
      items.insert_or_assign(std::move(key), std::move(object));
    }
    std::shared_ptr<const Indexers<T>> indexers;
    {
      std::shared_lock lock(mutex_);
      indexers = indexers_;
    }
    auto indices = build_indices(*indexers, items);
    std::unique_lock lock(mutex_);
    if (indexers != indexers_) indices = build_indices(*indexers_, items);  // indexers were added
    // The new indices point into `items`' nodes, which the move hands over as they are; set
    // first, no index ever holds the address of an entry already freed.
    indices_ = std::move(indices);
    plan_writes();
    items_ = std::move(items);
    resource_version_ = std::move(resource_version);
  }

  ObjectPtr get_by_key(std::string_view key) const override {
    std::shared_lock lock(mutex_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  std::vector<ObjectPtr> list() const {
    std::shared_lock lock(mutex_);
    std::vector<ObjectPtr> out;
    out.reserve(items_.size());
    for (const auto& [key, object] : items_) out.push_back(object);
    return out;
  }

  /// Calls `visit(const T&)` on every cached object, under the read lock and without copying
  /// the list (list() copies a pointer per object). `visit` must not write to this Indexer.
  template <class Visit>
  void for_each(Visit&& visit) const {
    std::shared_lock lock(mutex_);
    for (const auto& [key, object] : items_) visit(*object);
  }

  std::vector<std::string> list_keys() const override {
    std::shared_lock lock(mutex_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, object] : items_) out.emplace_back(key);
    return out;
  }

  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return items_.size();
  }

  /// The resourceVersion of the last replace() (the list it came from).
  std::string last_replace_resource_version() const {
    std::shared_lock lock(mutex_);
    return resource_version_;
  }

  bool has_index(std::string_view index_name) const {
    std::shared_lock lock(mutex_);
    return indices_.contains(index_name);
  }

  /// Objects whose `index_name` index contains `value`, ordered by key.
  /// Throws std::invalid_argument for an unknown index.
  std::vector<ObjectPtr> by_index(std::string_view index_name, std::string_view value) const {
    std::shared_lock lock(mutex_);
    std::vector<ObjectPtr> out;
    const Index& index = index_named(index_name);
    if (auto it = index.find(value); it != index.end()) {
      out.reserve(it->second.size());
      for (const Entry* entry : sorted(it->second)) out.push_back(entry->second);
    }
    return out;
  }

  /// Calls `visit(const T&)` on each object whose `index_name` index contains `value`: in no
  /// particular order, under the read lock, copying nothing (by_index sorts and copies a pointer
  /// per object). `visit` must not write to this Indexer. Throws std::invalid_argument for an
  /// unknown index.
  template <class Visit>
  void for_each_in_index(std::string_view index_name, std::string_view value, Visit&& visit) const {
    std::shared_lock lock(mutex_);
    const Index& index = index_named(index_name);
    if (auto it = index.find(value); it != index.end()) {
      for (const Entry* entry : it->second) visit(*entry->second);
    }
  }

  /// How many objects' `index_name` index contains `value`. Throws std::invalid_argument for an
  /// unknown index.
  std::size_t index_size(std::string_view index_name, std::string_view value) const {
    std::shared_lock lock(mutex_);
    const Index& index = index_named(index_name);
    const auto it = index.find(value);
    return it == index.end() ? 0 : it->second.size();
  }

  /// Keys whose `index_name` index contains `value`, sorted.
  std::vector<std::string> index_keys(std::string_view index_name, std::string_view value) const {
    std::shared_lock lock(mutex_);
    const Index& index = index_named(index_name);
    auto it = index.find(value);
    if (it == index.end()) return {};
    std::vector<std::string> keys;
    keys.reserve(it->second.size());
    for (const Entry* entry : sorted(it->second)) keys.emplace_back(entry->first.view());
    return keys;
  }

  /// Objects that share at least one `index_name` value with `object` (client-go's Index).
  std::vector<ObjectPtr> index(std::string_view index_name, const T& object) const {
    std::shared_lock lock(mutex_);
    const Index& index = index_named(index_name);
    std::vector<const Entry*> entries;
    for (const auto& value : indexers_->find(index_name)->second(object)) {
      if (auto it = index.find(value); it != index.end())
        entries.insert(entries.end(), it->second.begin(), it->second.end());
    }
    sort_by_key(entries);
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    std::vector<ObjectPtr> out;
    out.reserve(entries.size());
    for (const Entry* entry : entries) out.push_back(entry->second);
    return out;
  }

  /// Every value currently present in the `index_name` index, sorted.
  std::vector<std::string> list_index_func_values(std::string_view index_name) const {
    std::shared_lock lock(mutex_);
    const Index& index = index_named(index_name);
    std::vector<std::string> out;
    out.reserve(index.size());
    for (const auto& [value, keys] : index) out.push_back(value);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  // A cached object's entry in items_: its key and the object.
  using Entry = typename detail::KeyMap<ObjectPtr>::value_type;
  // index value -> the entries of items_ it holds, by address (moving items_ keeps its nodes, so
  // the addresses survive). Open-addressing sets of pointers: 8 bytes a slot and a byte of
  // metadata, no allocation per member (a std::unordered_set node took 32 bytes of heap and its
  // bucket 8); hashing an address reads no key. Readers sort what they return by key.
  using KeySet = boost::unordered_flat_set<const Entry*>;
  using Index = detail::StringMap<KeySet>;

  static void sort_by_key(std::vector<const Entry*>& entries) {
    std::sort(entries.begin(), entries.end(),
              [](const Entry* a, const Entry* b) { return a->first.view() < b->first.view(); });
  }

  static std::vector<const Entry*> sorted(const KeySet& keys) {
    std::vector<const Entry*> out(keys.begin(), keys.end());
    sort_by_key(out);
    return out;
  }

  ObjectPtr prepare(ObjectPtr object) const {
    if (!object) throw std::invalid_argument("cannot store a null object in the Indexer");
    if (transform_) {
      object = transform_(std::move(object));
      if (!object) throw std::invalid_argument("the Indexer's transform returned a null object");
    }
    return object;
  }

  Upserted upsert(ObjectPtr object) {
    object = prepare(std::move(object));
    std::unique_lock lock(mutex_);
    std::string& key = key_scratch_;  // reused: no allocation per write
    assign_meta_namespace_key(key, *object);
    // One lookup finds the key or makes its entry (empty until the values below are known).
    auto [it, inserted] = items_.try_emplace(detail::StoreKey(key));
    const bool updating = !inserted;
    // Compute every index value, new and old, before touching anything else, so a throwing
    // index function leaves the store as it was. The namespace index's value is read off the
    // object below, without calling its function (and an update cannot change it).
    std::vector<std::vector<std::string>>& new_values = new_values_scratch_;
    std::vector<std::vector<std::string>>& old_values = old_values_scratch_;
    new_values.resize(writes_.size());
    old_values.resize(writes_.size());
    try {
      for (std::size_t i = 0; i < writes_.size(); ++i) {
        const IndexWrite& write = writes_[i];
        if (write.follows_from_key) continue;
        new_values[i] = (*write.func)(*object);
        old_values[i] = updating ? (*write.func)(*it->second) : std::vector<std::string>{};
      }
    } catch (...) {
      if (inserted) items_.erase(it);
      throw;
    }

    ObjectPtr previous = std::exchange(it->second, object);
    const Entry* const stored = &*it;
    const auto contains = [](const std::vector<std::string>& values, const std::string& value) {
      return std::find(values.begin(), values.end(), value) != values.end();
    };
    for (std::size_t i = 0; i < writes_.size(); ++i) {
      Index& index = *writes_[i].index;
      if (writes_[i].follows_from_key) {
        if (inserted) members_of(index, meta::namespace_(*object)).insert(stored);
        continue;
      }
      const std::vector<std::string>& fresh = new_values[i];
      const std::vector<std::string>& stale = old_values[i];
      for (const auto& value : stale) {
        if (!contains(fresh, value)) erase_from(index, value, stored);
      }
      // An update mostly keeps its index values (namespace, node): those entries are in place.
      for (const auto& value : fresh) {
        if (!contains(stale, value)) index[value].insert(stored);
      }
    }
    return {std::move(previous), std::move(object)};
  }

  void unindex(const Entry* entry, const T& object) {
    for (const IndexWrite& write : writes_) {
      for (const auto& value : (*write.func)(object)) erase_from(*write.index, value, entry);
    }
  }

  // True for the built-in namespace index: its one value is the object's namespace, part of the
  // key, so upsert() reads it off the object and an update (same key) cannot change it.
  static bool follows_from_key(const IndexFunc<T>& func) {
    using Plain = std::vector<std::string> (*)(const T&);
    const Plain* plain = func.template target<Plain>();
    return plain != nullptr && *plain == &namespace_index_func<T>;
  }

  // Rebuilds writes_ after indexers_ or indices_ changed (with the write lock held, or in the
  // constructor).
  void plan_writes() {
    writes_.clear();
    for (const auto& [name, func] : *indexers_) {
      writes_.push_back({&func, &indices_.find(name)->second, follows_from_key(func)});
    }
  }

  // The set of `value` in `index`, made if new.
  static KeySet& members_of(Index& index, std::string_view value) {
    auto it = index.find(value);
    if (it == index.end()) it = index.emplace(std::string(value), KeySet{}).first;
    return it->second;
  }

  static void erase_from(Index& index, const std::string& value, const Entry* entry) {
    auto it = index.find(value);
    if (it == index.end()) return;
    it->second.erase(entry);
    if (it->second.empty()) index.erase(it);  // no empty buckets left behind
  }

  static detail::StringMap<Index> build_indices(const Indexers<T>& indexers,
                                                const detail::KeyMap<ObjectPtr>& items) {
    detail::StringMap<Index> indices;
    for (const auto& [name, func] : indexers) {
      Index& index = indices[name];
      for (const Entry& entry : items) {
        for (auto& value : func(*entry.second)) index[std::move(value)].insert(&entry);
      }
    }
    return indices;
  }

  const Index& index_named(std::string_view name) const {
    auto it = indices_.find(name);
    if (it == indices_.end()) {
      std::string known;
      for (const auto& [n, f] : *indexers_) known += (known.empty() ? "" : ", ") + n;
      throw std::invalid_argument("index '" + std::string(name) +
                                  "' does not exist; registered indexes: " + known +
                                  " (register it with add_indexers)");
    }
    return it->second;
  }

  // What a write updates: each index function and its index (in indexers_ and indices_).
  struct IndexWrite {
    const IndexFunc<T>* func;
    Index* index;
    bool follows_from_key;  // the namespace index (see follows_from_key())
  };

  mutable std::shared_mutex mutex_;
  std::shared_ptr<const Indexers<T>> indexers_;
  TransformFunc<T> transform_;
  detail::KeyMap<ObjectPtr> items_;
  detail::StringMap<Index> indices_;
  std::vector<IndexWrite> writes_;
  std::string resource_version_;
  // upsert()'s working memory, kept between writes (guarded by mutex_ like the rest).
  std::string key_scratch_;
  std::vector<std::vector<std::string>> new_values_scratch_;
  std::vector<std::vector<std::string>> old_values_scratch_;
};

}  // namespace rg::informer
