// ObjectIndex: the objects of one resource type ordered by key (as etcd orders them), held in an
// immutable, structurally shared balanced tree (a treap with path copying). Copying an index is
// O(1) and the copy never changes; insert and erase copy only the O(log n) nodes on their path.
// So the store hands out the state at a resourceVersion in O(1), keeps paginated-list snapshots
// for the cost of the nodes changed since, and a page starts at its continue key in O(log n) --
// the role the watch cache's copy-on-write B-tree plays in the API server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/stored_object.hpp"

namespace rg::sim {

class ObjectIndex {
 public:
  struct Node;  ///< defined in object_index.cpp
  /// In-order walk over ObjectPtr, optionally stopping before an upper bound key.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = ObjectPtr;
    using difference_type = std::ptrdiff_t;
    using pointer = const ObjectPtr*;
    using reference = const ObjectPtr&;

    Iterator() = default;
    reference operator*() const;
    pointer operator->() const { return &**this; }
    Iterator& operator++();
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const;

   private:
    friend class ObjectIndex;
    void push_left(const Node* node);
    void stop_at_bound();

    std::vector<const Node*> path_;  // the current node on top, then its unvisited ancestors
    std::string_view bound_;         // keys >= bound_ end the walk (empty: no bound)
  };

  std::size_t size() const;
  bool empty() const { return root_ == nullptr; }

  /// The object stored under `key`, or null.
  ObjectPtr find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// Stores `object` under its key, replacing the object there. Copies of this index made
  /// before are unaffected.
  void insert(ObjectPtr object);
  /// Removes `key` (no-op when absent). Copies made before are unaffected.
  void erase(std::string_view key);

  Iterator begin() const { return lower_bound({}, {}); }
  Iterator end() const { return {}; }
  /// The first object whose key is >= `key`; the walk ends before `bound` (empty: no bound).
  Iterator lower_bound(std::string_view key, std::string_view bound) const;
  /// How many keys are < `key`.
  std::size_t rank(std::string_view key) const;

 private:
  std::shared_ptr<const Node> root_;
};

/// Three-way comparison of an object's store key with `key`, without building the key.
int compare_key(const StoredObject& object, std::string_view key);

/// The objects of an index whose keys lie in [low, high) -- one namespace, or all.
class ObjectRange {
 public:
  ObjectRange() = default;
  /// All objects (`namespace_` empty) or those of one namespace.
  ObjectRange(ObjectIndex index, std::string_view namespace_);

  ObjectIndex::Iterator begin() const { return index_.lower_bound(low_, high_); }
  ObjectIndex::Iterator end() const { return {}; }
  /// The first object at or after `key` within the range.
  ObjectIndex::Iterator from(std::string_view key) const;
  std::size_t size() const;
  bool empty() const { return begin() == end(); }
  /// How many objects of the range are at or after `position`.
  std::size_t count_from(const ObjectIndex::Iterator& position) const;
  const ObjectIndex& index() const { return index_; }

 private:
  std::size_t rank_of_high() const;

  ObjectIndex index_;
  std::string low_;
  std::string high_;  // empty: unbounded
};

}  // namespace rg::sim
