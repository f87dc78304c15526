// FieldSet: a set of field paths of an object, as managedFields record them (the FieldsV1
// format of structured-merge-diff): path elements `f:<field>`, `k:<key fields as JSON>` for an
// item of a keyed list, `v:<JSON value>` for a member of a set, `i:<index>`; `.` marks a node
// that is itself a member when it also has members below it.
#pragma once

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rg::sim::apply {

/// One path: serialized elements from the root, e.g. {"f:spec", "f:replicas"}.
using FieldPath = std::vector<std::string>;

class FieldSet {
 public:
  bool empty() const { return !root_.member && root_.children.empty(); }
  void insert(const FieldPath& path);
  bool contains(const FieldPath& path) const;
  /// True if `path` or anything below it is a member.
  bool contains_prefix(const FieldPath& path) const;

  FieldSet union_with(const FieldSet& other) const;
  FieldSet difference(const FieldSet& other) const;
  FieldSet intersection(const FieldSet& other) const;
  /// The members at or below `prefix` removed.
  FieldSet without_prefix(const FieldPath& prefix) const;
  /// Removes the members at or below `prefix` from this set.
  void erase_prefix(const FieldPath& prefix);
  /// Only the members at or below `prefix`.
  FieldSet only_prefix(const FieldPath& prefix) const;

  /// Every member, in order (parents before children).
  void for_each(const std::function<void(const FieldPath&)>& action) const;

  /// The FieldsV1 JSON object, in `storage`.
  boost::json::object to_json(const boost::json::storage_ptr& storage = {}) const;
  /// Parses FieldsV1; throws std::invalid_argument for what is not an object of objects.
  static FieldSet from_json(const boost::json::value& fields);
  /// True when `fields` is exactly what to_json() writes for a set that is not empty: objects
  /// only, path elements in order, "." (empty) first and only in a node with members below it.
  /// Such JSON can be read in place, without from_json().
  static bool is_encoded(const boost::json::value& fields);
  /// Whether encoded `fields` (is_encoded()) hold `path` as a member.
  static bool encoded_contains(const boost::json::value& fields, const FieldPath& path);

  bool operator==(const FieldSet& other) const = default;

 private:
  struct Node {
    bool member = false;
    std::map<std::string, Node> children;
    bool operator==(const Node& other) const = default;
  };
  static void merge(Node& into, const Node& from);
  static bool subtract(Node& from, const Node& other);  // true if `from` became empty
  static bool intersect(Node& from, const Node& other);
  // Removes prefix[depth..] below `node`; true when `node` is left without members.
  static bool erase_below(Node& node, const FieldPath& prefix, std::size_t depth);
  static boost::json::object node_json(const Node& node, const boost::json::storage_ptr& storage);
  static bool is_encoded_node(const boost::json::value& fields, bool root);
  static Node node_from(const boost::json::value& fields);
  static void visit(const Node& node, FieldPath& path,
                    const std::function<void(const FieldPath&)>& fn);

  Node root_;
};

/// A path as apply conflicts print it: `.spec.template.spec.containers[name="c"].image`.
std::string display_path(const FieldPath& path);

}  // namespace rg::sim::apply
