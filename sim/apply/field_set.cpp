// FieldSet: set algebra on field path trees and the FieldsV1 encoding (see field_set.hpp).
#include "sim/apply/field_set.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace rg::sim::apply {

namespace json = boost::json;

void FieldSet::insert(const FieldPath& path) {
  Node* node = &root_;
  for (const auto& element : path) node = &node->children[element];
  node->member = true;
}

bool FieldSet::contains(const FieldPath& path) const {
  const Node* node = &root_;
  for (const auto& element : path) {
    auto it = node->children.find(element);
    if (it == node->children.end()) return false;
    node = &it->second;
  }
  return node->member;
}

bool FieldSet::contains_prefix(const FieldPath& path) const {
  const Node* node = &root_;
  for (const auto& element : path) {
    auto it = node->children.find(element);
    if (it == node->children.end()) return false;
    node = &it->second;
  }
  return node->member || !node->children.empty();
}

void FieldSet::merge(Node& into, const Node& from) {
  into.member = into.member || from.member;
  for (const auto& [element, child] : from.children) merge(into.children[element], child);
}

bool FieldSet::subtract(Node& from, const Node& other) {
  if (other.member) from.member = false;
  for (auto it = from.children.begin(); it != from.children.end();) {
    auto match = other.children.find(it->first);
    if (match != other.children.end() && subtract(it->second, match->second))
      it = from.children.erase(it);
    else
      ++it;
  }
  return !from.member && from.children.empty();
}

bool FieldSet::intersect(Node& from, const Node& other) {
  from.member = from.member && other.member;
  for (auto it = from.children.begin(); it != from.children.end();) {
    auto match = other.children.find(it->first);
    if (match == other.children.end() || intersect(it->second, match->second))
      it = from.children.erase(it);
    else
      ++it;
  }
  return !from.member && from.children.empty();
}

FieldSet FieldSet::union_with(const FieldSet& other) const {
  FieldSet out = *this;
  merge(out.root_, other.root_);
  return out;
}

FieldSet FieldSet::difference(const FieldSet& other) const {
  FieldSet out = *this;
  subtract(out.root_, other.root_);
  return out;
}

FieldSet FieldSet::intersection(const FieldSet& other) const {
  FieldSet out = *this;
  intersect(out.root_, other.root_);
  return out;
}

FieldSet FieldSet::without_prefix(const FieldPath& prefix) const {
  FieldSet out = *this;
  out.erase_prefix(prefix);
  return out;
}

bool FieldSet::erase_below(Node& node, const FieldPath& prefix, std::size_t depth) {
  auto it = node.children.find(prefix[depth]);
  if (it == node.children.end()) return false;
  // The child goes with everything below it, or when the removal leaves it without members.
  if (depth + 1 == prefix.size() || erase_below(it->second, prefix, depth + 1))
    node.children.erase(it);
  return !node.member && node.children.empty();
}

void FieldSet::erase_prefix(const FieldPath& prefix) {
  if (prefix.empty())
    root_ = Node();
  else
    erase_below(root_, prefix, 0);
}

FieldSet FieldSet::only_prefix(const FieldPath& prefix) const {
  FieldSet out;
  const Node* node = &root_;
  Node* target = &out.root_;
  for (const auto& element : prefix) {
    auto it = node->children.find(element);
    if (it == node->children.end()) return FieldSet();
    node = &it->second;
    target = &target->children[element];
  }
  *target = *node;
  return out;
}

void FieldSet::visit(const Node& node, FieldPath& path,
                     const std::function<void(const FieldPath&)>& fn) {
  if (node.member) fn(path);
  for (const auto& [element, child] : node.children) {
    path.push_back(element);
    visit(child, path, fn);
    path.pop_back();
  }
}

void FieldSet::for_each(const std::function<void(const FieldPath&)>& action) const {
  FieldPath path;
  visit(root_, path, action);
}

json::object FieldSet::node_json(const Node& node, const json::storage_ptr& storage) {
  json::object out(storage);
  out.reserve(node.children.size() + (node.member ? 1 : 0));
  if (node.member && !node.children.empty()) out.emplace(".", json::object(storage));
  for (const auto& [element, child] : node.children)
    out.emplace(element, node_json(child, storage));
  return out;
}

json::object FieldSet::to_json(const json::storage_ptr& storage) const {
  return node_json(root_, storage);
}

bool FieldSet::is_encoded_node(const json::value& fields, bool root) {
  const auto* object = fields.if_object();
  if (object == nullptr) return false;
  if (object->empty()) return !root;  // a member without members below it
  auto it = object->begin();
  if (it->key() == ".") {
    const auto* dot = it->value().if_object();
    if (root || dot == nullptr || !dot->empty() || ++it == object->end()) return false;
  }
  std::string_view previous;
  for (; it != object->end(); ++it) {
    const std::string_view element = it->key();
    if (element.size() < 2 || element[1] != ':' ||
        std::string_view("fkvi").find(element[0]) == std::string_view::npos)
      return false;
    if (!previous.empty() && !(previous < element)) return false;  // std::map's order
    if (!is_encoded_node(it->value(), false)) return false;
    previous = element;
  }
  return true;
}

bool FieldSet::is_encoded(const json::value& fields) { return is_encoded_node(fields, true); }

bool FieldSet::encoded_contains(const json::value& fields, const FieldPath& path) {
  if (path.empty()) return false;  // the root is never a member
  const json::value* node = &fields;
  for (const auto& element : path) {
    const auto* object = node->if_object();
    node = object != nullptr ? object->if_contains(element) : nullptr;
    if (node == nullptr) return false;
  }
  const auto* object = node->if_object();
  return object != nullptr && (object->empty() || object->contains("."));
}

FieldSet::Node FieldSet::node_from(const json::value& fields) {
  const auto* object = fields.if_object();
  if (object == nullptr)
    throw std::invalid_argument("fieldsV1 must be a JSON object of path elements");
  Node node;
  node.member = object->empty();
  for (const auto& [element, child] : *object) {
    if (element == ".") {
      node.member = true;
      continue;
    }
    if (element.size() < 2 || element[1] != ':' ||
        std::string_view("fkvi").find(element[0]) == std::string_view::npos)
      throw std::invalid_argument("fieldsV1 path element \"" + std::string(element) +
                                  "\" is none of f:, k:, v:, i:");
    node.children.emplace(std::string(element), node_from(child));
  }
  return node;
}

FieldSet FieldSet::from_json(const json::value& fields) {
  FieldSet set;
  set.root_ = node_from(fields);
  set.root_.member = false;  // the root is the object itself, never a member
  return set;
}

std::string display_path(const FieldPath& path) {
  std::string out;
  for (const auto& element : path) {
    std::string_view body = std::string_view(element).substr(2);
    switch (element[0]) {
      case 'f':
        out.append(".").append(body);
        break;
      case 'k': {
        out += "[";
        boost::system::error_code ec;
        auto keys = json::parse(body, ec);
        bool first = true;
        if (!ec && keys.is_object()) {
          for (const auto& [name, value] : keys.get_object()) {
            if (!first) out += ",";
            first = false;
            out.append(name).append("=").append(json::serialize(value));
          }
        } else {
          out.append(body);
        }
        out += "]";
        break;
      }
      case 'v':
        out.append("[=").append(body).append("]");
        break;
      default:
        out.append("[").append(body).append("]");
        break;
    }
  }
  return out;
}

}  // namespace rg::sim::apply
