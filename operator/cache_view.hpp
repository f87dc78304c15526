// CacheView: the reconciler's read-only view of one kind's cache. With --namespace given more than
// once the operator runs one informer per watched namespace (RBAC grants nothing cluster-wide),
// so a kind's objects sit in several indexers; the view answers as one cache would. Keys and the
// reconciler's index values of namespaced objects start with their namespace, so a lookup meets
// at most one indexer that holds anything, except the cluster-wide ones (spec.nodeName), which
// are joined.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "informer/indexer.hpp"

namespace rg::op {

template <class T>
class CacheView {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  /// One cache (cluster-wide or one namespace).
  CacheView(const informer::Indexer<T>& indexer)  // NOLINT(google-explicit-constructor)
      : indexers_{&indexer} {}
  /// One cache per watched namespace.
  explicit CacheView(std::vector<const informer::Indexer<T>*> indexers)
      : indexers_(std::move(indexers)) {}

  ObjectPtr get_by_key(std::string_view key) const {
    for (const auto* indexer : indexers_) {
      if (auto object = indexer->get_by_key(key)) return object;
    }
    return nullptr;
  }

  std::vector<ObjectPtr> by_index(std::string_view index_name, std::string_view value) const {
    if (indexers_.size() == 1) return indexers_.front()->by_index(index_name, value);
    std::vector<ObjectPtr> out;
    for (const auto* indexer : indexers_) {
      auto part = indexer->by_index(index_name, value);
      out.insert(out.end(), std::make_move_iterator(part.begin()),
                 std::make_move_iterator(part.end()));
    }
    return out;
  }

  /// Calls `visit(const T&)` on each object of every cache whose `index_name` index contains
  /// `value`, in no particular order, without copying.
  template <class Visit>
  void for_each_in_index(std::string_view index_name, std::string_view value,
                         const Visit& visit) const {
    for (const auto* indexer : indexers_) indexer->for_each_in_index(index_name, value, visit);
  }

  std::vector<ObjectPtr> list() const {
    if (indexers_.size() == 1) return indexers_.front()->list();
    std::vector<ObjectPtr> out;
    for (const auto* indexer : indexers_) {
      auto part = indexer->list();
      out.insert(out.end(), std::make_move_iterator(part.begin()),
                 std::make_move_iterator(part.end()));
    }
    return out;
  }

  /// Calls `visit(const T&)` on every object of every cache, without copying a list.
  template <class Visit>
  void for_each(const Visit& visit) const {
    for (const auto* indexer : indexers_) indexer->for_each(visit);
  }

  std::size_t size() const {
    std::size_t total = 0;
    for (const auto* indexer : indexers_) total += indexer->size();
    return total;
  }

 private:
  std::vector<const informer::Indexer<T>*> indexers_;
};

}  // namespace rg::op
