// ObjectIndex: a persistent treap keyed by store key, with subtree sizes for ranks.
#include "sim/object_index.hpp"

#include <functional>
#include <utility>

namespace rg::sim {

struct ObjectIndex::Node {
  ObjectPtr object;
  std::size_t priority = 0;  // a hash of the key: the treap's heap order, stable per key
  std::size_t size = 1;      // nodes in this subtree
  std::shared_ptr<const Node> left;
  std::shared_ptr<const Node> right;
};

namespace {

using Node = ObjectIndex::Node;
using NodePtr = std::shared_ptr<const Node>;

std::size_t size_of(const NodePtr& node) { return node == nullptr ? 0 : node->size; }

NodePtr make_node(ObjectPtr object, std::size_t priority, NodePtr left, NodePtr right) {
  auto node = std::make_shared<Node>();
  node->size = 1 + size_of(left) + size_of(right);
  node->object = std::move(object);
  node->priority = priority;
  node->left = std::move(left);
  node->right = std::move(right);
  return node;
}

NodePtr with_children(const Node& node, NodePtr left, NodePtr right) {
  return make_node(node.object, node.priority, std::move(left), std::move(right));
}

// Splits into the keys < key and the keys >= key.
std::pair<NodePtr, NodePtr> split(const NodePtr& node, std::string_view key) {
  if (node == nullptr) return {};
  if (compare_key(*node->object, key) < 0) {
    auto [low, high] = split(node->right, key);
    return {with_children(*node, node->left, std::move(low)), std::move(high)};
  }
  auto [low, high] = split(node->left, key);
  return {std::move(low), with_children(*node, std::move(high), node->right)};
}

// Joins two treaps whose keys are all ordered low < high.
NodePtr merge(const NodePtr& low, const NodePtr& high) {
  if (low == nullptr) return high;
  if (high == nullptr) return low;
  if (low->priority > high->priority)
    return with_children(*low, low->left, merge(low->right, high));
  return with_children(*high, merge(low, high->left), high->right);
}

NodePtr insert_new(const NodePtr& node, ObjectPtr object, std::size_t priority,
                   std::string_view key) {
  if (node == nullptr || priority > node->priority) {
    auto [low, high] = split(node, key);
    return make_node(std::move(object), priority, std::move(low), std::move(high));
  }
  if (compare_key(*node->object, key) > 0)
    return with_children(*node, insert_new(node->left, std::move(object), priority, key),
                         node->right);
  return with_children(*node, node->left,
                       insert_new(node->right, std::move(object), priority, key));
}

NodePtr replace(const NodePtr& node, ObjectPtr object, std::string_view key) {
  const int order = compare_key(*node->object, key);
  if (order == 0) return make_node(std::move(object), node->priority, node->left, node->right);
  if (order > 0)
    return with_children(*node, replace(node->left, std::move(object), key), node->right);
  return with_children(*node, node->left, replace(node->right, std::move(object), key));
}

NodePtr erase_present(const NodePtr& node, std::string_view key) {
  const int order = compare_key(*node->object, key);
  if (order == 0) return merge(node->left, node->right);
  if (order > 0) return with_children(*node, erase_present(node->left, key), node->right);
  return with_children(*node, node->left, erase_present(node->right, key));
}

}  // namespace

int compare_key(const StoredObject& object, std::string_view key) {
  auto sign = [](int value) { return (value > 0) - (value < 0); };
  const std::string_view ns = object.namespace_;
  if (ns.empty()) return sign(std::string_view(object.name).compare(key));
  if (int order = ns.compare(key.substr(0, ns.size())); order != 0) return sign(order);
  const std::string_view rest = key.substr(ns.size());  // key starts with the namespace
  if (rest.empty()) return 1;
  if (rest.front() != '/') return rest.front() < '/' ? 1 : -1;
  return sign(std::string_view(object.name).compare(rest.substr(1)));
}

std::size_t ObjectIndex::size() const { return size_of(root_); }

ObjectPtr ObjectIndex::find(std::string_view key) const {
  const Node* node = root_.get();
  while (node != nullptr) {
    const int order = compare_key(*node->object, key);
    if (order == 0) return node->object;
    node = order > 0 ? node->left.get() : node->right.get();
  }
  return nullptr;
}

void ObjectIndex::insert(ObjectPtr object) {
  const std::string key = object->key();
  if (contains(key)) {
    root_ = replace(root_, std::move(object), key);
    return;
  }
  const std::size_t priority = std::hash<std::string>{}(key);
  root_ = insert_new(root_, std::move(object), priority, key);
}

void ObjectIndex::erase(std::string_view key) {
  if (contains(key)) root_ = erase_present(root_, key);
}

ObjectIndex::Iterator ObjectIndex::lower_bound(std::string_view key, std::string_view bound) const {
  Iterator it;
  it.bound_ = bound;
  for (const Node* node = root_.get(); node != nullptr;) {
    if (compare_key(*node->object, key) >= 0) {
      it.path_.push_back(node);
      node = node->left.get();
    } else {
      node = node->right.get();
    }
  }
  it.stop_at_bound();
  return it;
}

std::size_t ObjectIndex::rank(std::string_view key) const {
  std::size_t below = 0;
  for (const Node* node = root_.get(); node != nullptr;) {
    if (compare_key(*node->object, key) < 0) {
      below += size_of(node->left) + 1;
      node = node->right.get();
    } else {
      node = node->left.get();
    }
  }
  return below;
}

const ObjectPtr& ObjectIndex::Iterator::operator*() const { return path_.back()->object; }

ObjectIndex::Iterator& ObjectIndex::Iterator::operator++() {
  const Node* current = path_.back();
  path_.pop_back();
  push_left(current->right.get());
  stop_at_bound();
  return *this;
}

bool ObjectIndex::Iterator::operator==(const Iterator& other) const {
  if (path_.empty() || other.path_.empty()) return path_.empty() == other.path_.empty();
  return path_.back() == other.path_.back();
}

void ObjectIndex::Iterator::push_left(const Node* node) {
  for (; node != nullptr; node = node->left.get()) path_.push_back(node);
}

void ObjectIndex::Iterator::stop_at_bound() {
  if (!path_.empty() && !bound_.empty() && compare_key(*path_.back()->object, bound_) >= 0)
    path_.clear();
}

ObjectRange::ObjectRange(ObjectIndex index, std::string_view namespace_)
    : index_(std::move(index)) {
  // The keys of namespace "ns" form ["ns/", "ns0"): '0' follows '/'.
  if (!namespace_.empty()) {
    low_ = std::string(namespace_) + "/";
    high_ = std::string(namespace_) + "0";
  }
}

ObjectIndex::Iterator ObjectRange::from(std::string_view key) const {
  return index_.lower_bound(key < std::string_view(low_) ? std::string_view(low_) : key, high_);
}

std::size_t ObjectRange::rank_of_high() const {
  return high_.empty() ? index_.size() : index_.rank(high_);
}

std::size_t ObjectRange::size() const { return rank_of_high() - index_.rank(low_); }

std::size_t ObjectRange::count_from(const ObjectIndex::Iterator& position) const {
  if (position == end()) return 0;
  return rank_of_high() - index_.rank((*position)->key());
}

}  // namespace rg::sim
