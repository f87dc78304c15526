// item_table.hpp: the per-key state behind a Queue (client-go's dirty and processing sets), with
// each key stored once. An Item lives at a stable address from its key's first add() until its
// state is dropped, so the queue's FIFO holds Item pointers instead of key copies, and get() and
// done() reach a key's state without hashing it again (a Claim holds its Item). Lookups hash the
// key once and compare stored hashes before keys. Dropped Items are recycled with their key's
// storage (a long string key's buffer is reused by the next key that fits), so a steady
// add/get/done cycle allocates nothing here; memory stays at the most keys ever tracked at once, as
// the hash index's does. Not synchronised: the owning queue guards it with its own lock.
#pragma once

#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

#include <boost/unordered/hash_traits.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include "workqueue/clock.hpp"

namespace rg::workqueue::detail {

// A hash that says (to boost::unordered) that it avalanches, when `Enabled`.
template <bool Enabled>
struct AvalanchingIf {};
template <>
struct AvalanchingIf<true> {
  using is_avalanching = void;
};

template <class Key, class Hash, class KeyEqual>
class ItemTable {
 public:
  struct Item {
    explicit Item(const Key& k) : key(k) {}
    explicit Item(Key&& k) : key(std::move(k)) {}

    Key key;
    bool dirty = false;       // waiting to be processed (queued, or re-added while processing)
    bool processing = false;  // handed out by get(), done() not yet called
    TimePoint added_at{};     // metrics only
    TimePoint started_at{};   // metrics only
    std::size_t hash = 0;     // Hash{}(key), kept for the index
  };

 private:
  // A key being looked up, with its hash computed once.
  struct Probe {
    const Key& key;
    std::size_t hash;
  };

  // Hashes with the stored hash, post-mixed by the table unless Hash's output avalanches.
  struct IndexHash : AvalanchingIf<boost::unordered::hash_is_avalanching<Hash>::value> {
    using is_transparent = void;
    std::size_t operator()(const Item* item) const { return item->hash; }
    std::size_t operator()(const Probe& probe) const { return probe.hash; }
  };

  struct IndexEqual {
    using is_transparent = void;
    bool operator()(const Item* a, const Item* b) const { return a == b; }
    bool operator()(const Probe& p, const Item* item) const {
      return item->hash == p.hash && KeyEqual{}(item->key, p.key);
    }
    bool operator()(const Item* item, const Probe& p) const { return (*this)(p, item); }
  };

  using Index = boost::unordered_flat_set<Item*, IndexHash, IndexEqual>;

 public:
  // The Item of `key`, made (clean, idle) if it had none.
  template <class K>
  Item* find_or_insert(K&& key) {
    const std::size_t hash = hash_(key);
    auto it = index_.find(Probe{key, hash});
    if (it != index_.end()) return *it;
    Item* item = make_item(std::forward<K>(key));
    item->hash = hash;
    index_.insert(item);
    return item;
  }

  // Drops `item`'s key state; `item` must not be used afterwards. Found by its stored hash and
  // address: the key itself is neither hashed nor compared again.
  void erase(Item* item) {
    index_.erase(item);
    free_.push_back(item);
  }

  // Calls f(const Item&) for every key with state.
  template <class F>
  void for_each(F&& f) const {
    for (const Item* item : index_) f(*item);
  }

 private:
  template <class K>
  Item* make_item(K&& key) {
    if (free_.empty()) return &items_.emplace_back(std::forward<K>(key));
    Item* item = free_.back();
    free_.pop_back();
    item->key = std::forward<K>(key);
    item->dirty = false;
    item->processing = false;
    return item;
  }

  [[no_unique_address]] Hash hash_;
  std::deque<Item> items_;  // never shrinks: Items are recycled through free_
  std::vector<Item*> free_;
  Index index_;
};

}  // namespace rg::workqueue::detail
