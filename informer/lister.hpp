// Listers: typed, read-only views of an Indexer for controllers (client-go's generated listers).
// Selectors are anything with `bool matches(const rg::client::Labels&) const` (the label
// selector of client/labels), or a plain predicate on the labels.
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/labels/labels.hpp"
#include "informer/indexer.hpp"
#include "informer/object_key.hpp"

namespace rg::informer {

/// Something that selects objects by their labels.
template <class S>
concept LabelMatcher = requires(const S& selector, const client::Labels& labels) {
  { selector.matches(labels) } -> std::convertible_to<bool>;
}
|| std::predicate<const S&, const client::Labels&>;

/// Selects every object (labels.Everything()).
struct Everything {
  bool matches(const client::Labels&) const { return true; }
};

template <LabelMatcher S>
bool selects(const S& selector, const client::Labels& labels) {
  if constexpr (requires { selector.matches(labels); }) {
    return selector.matches(labels);
  } else {
    return selector(labels);
  }
}

template <KubeObject T>
class NamespaceLister {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  NamespaceLister(const Indexer<T>& indexer, std::string namespace_name)
      : indexer_(&indexer), namespace_(std::move(namespace_name)) {}

  /// Objects of this namespace whose labels the selector matches.
  template <LabelMatcher S = Everything>
  std::vector<ObjectPtr> list(const S& selector = {}) const {
    std::vector<ObjectPtr> candidates;
    if (indexer_->has_index(kNamespaceIndex)) {
      candidates = indexer_->by_index(kNamespaceIndex, namespace_);
    } else {
      for (auto& object : indexer_->list()) {
        if (meta::namespace_(*object) == namespace_) candidates.push_back(std::move(object));
      }
    }
    std::erase_if(candidates, [&](const ObjectPtr& object) {
      return !selects(selector, meta::labels(*object));
    });
    return candidates;
  }

  /// The object named `name` in this namespace, or null.
  ObjectPtr get(std::string_view name) const {
    return indexer_->get_by_key(namespace_key(namespace_, name));
  }

 private:
  const Indexer<T>* indexer_;
  std::string namespace_;
};

template <KubeObject T>
class Lister {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  explicit Lister(const Indexer<T>& indexer) : indexer_(&indexer) {}

  /// Objects (of every namespace) whose labels the selector matches.
  template <LabelMatcher S = Everything>
  std::vector<ObjectPtr> list(const S& selector = {}) const {
    std::vector<ObjectPtr> objects = indexer_->list();
    std::erase_if(objects, [&](const ObjectPtr& object) {
      return !selects(selector, meta::labels(*object));
    });
    return objects;
  }

  /// A cluster-scoped object by name, or null.
  ObjectPtr get(std::string_view name) const { return indexer_->get_by_key(name); }

  /// The objects of one namespace (the trailing _ as in ObjectMeta::namespace_: a keyword).
  NamespaceLister<T> namespace_(std::string namespace_name) const {
    return NamespaceLister<T>(*indexer_, std::move(namespace_name));
  }

 private:
  const Indexer<T>* indexer_;
};

}  // namespace rg::informer
