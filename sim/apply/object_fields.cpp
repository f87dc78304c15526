// Field sets, comparisons, merges and removals over JSON objects (see object_fields.hpp).
#include "sim/apply/object_fields.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>

#include "sim/apply/list_types.hpp"
#include "sim/json_equal.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

/// Where a walk is: the field names (for list_types) and the serialized path (for the set).
struct Cursor {
  std::string_view kind;
  std::vector<std::string> names;
  FieldPath path;

  void enter_field(std::string_view field) {
    names.emplace_back(field);
    path.push_back("f:" + std::string(field));
  }
  void leave_field() {
    names.pop_back();
    path.pop_back();
  }
  ListType list() const { return list_type(kind, names); }
  bool atomic_struct() const { return is_atomic_struct(kind, names); }
};

/// The `k:` element of a keyed list item (key fields sorted by name, as structured-merge-diff
/// sorts them), or "" when the item has none of the keys.
std::string item_element(const json::value& item, const ListType& type) {
  const auto* object = item.if_object();
  if (object == nullptr) return {};
  std::map<std::string_view, json::value> keys;
  for (auto key : type.keys) {
    if (const auto* value = object->if_contains(key))
      keys.emplace(key, *value);
    else if (key == type.defaulted_key)
      keys.emplace(key, json::string(type.key_default));
  }
  if (keys.empty() || !object->contains(type.keys.front())) return {};
  json::object sorted;
  for (auto& [key, value] : keys) sorted[key] = std::move(value);
  return "k:" + json::serialize(sorted);
}

std::string value_element(const json::value& value) { return "v:" + json::serialize(value); }

std::string index_element(std::size_t index) { return "i:" + std::to_string(index); }

/// The element naming each item of a list: by key, by value, or by position.
std::vector<std::string> elements_of(const json::array& items, const ListType& type) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string element;
    if (type.kind == ListKind::kMap) element = item_element(items[i], type);
    if (type.kind == ListKind::kSet) element = value_element(items[i]);
    out.push_back(element.empty() ? index_element(i) : std::move(element));
  }
  return out;
}

void collect(const json::value& value, Cursor& at, FieldSet& out);

void collect_object(const json::object& object, Cursor& at, FieldSet& out) {
  for (const auto& [key, value] : object) {
    at.enter_field(key);
    collect(value, at, out);
    at.leave_field();
  }
}

void collect(const json::value& value, Cursor& at, FieldSet& out) {
  if (const auto* object = value.if_object(); object != nullptr && !at.atomic_struct()) {
    if (object->empty()) out.insert(at.path);
    collect_object(*object, at, out);
    return;
  }
  const auto* array = value.if_array();
  const ListType type = at.list();
  if (array == nullptr || type.kind == ListKind::kAtomic) {
    out.insert(at.path);
    return;
  }
  const auto elements = elements_of(*array, type);
  for (std::size_t i = 0; i < array->size(); ++i) {
    at.path.push_back(elements[i]);
    out.insert(at.path);
    if (const auto* item = (*array)[i].if_object(); item != nullptr && type.kind == ListKind::kMap)
      collect_object(*item, at, out);
    at.path.pop_back();
  }
}

/// An added value: itself a member, and everything it contains.
void added(const json::value& value, Cursor& at, FieldSet& out) {
  out.insert(at.path);
  if (value.is_object() || value.is_array()) collect(value, at, out);
}

void diff(const json::value& before, const json::value& after, Cursor& at, Comparison& out);

void diff_object(const json::object& before, const json::object& after, Cursor& at,
                 Comparison& out) {
  for (const auto& [key, value] : after) {
    const auto* old = before.if_contains(key);
    // An identical subtree holds no change: a write touches a few fields of a large object, and
    // comparing values is much cheaper than naming each field on the way down.
    if (old != nullptr && json_equal(*old, value)) continue;
    at.enter_field(key);
    if (old != nullptr)
      diff(*old, value, at, out);
    else
      added(value, at, out.changed);
    at.leave_field();
  }
  for (const auto& [key, value] : before) {
    if (after.contains(key)) continue;
    at.enter_field(key);
    added(value, at, out.removed);
    at.leave_field();
  }
}

void diff(const json::value& before, const json::value& after, Cursor& at, Comparison& out) {
  if (before.is_object() && after.is_object() && !at.atomic_struct()) {
    diff_object(before.get_object(), after.get_object(), at, out);
    return;
  }
  const ListType type = at.list();
  if (before.is_array() && after.is_array() && type.kind != ListKind::kAtomic) {
    const auto& old_items = before.get_array();
    const auto& new_items = after.get_array();
    const auto old_elements = elements_of(old_items, type);
    const auto new_elements = elements_of(new_items, type);
    for (std::size_t i = 0; i < new_items.size(); ++i) {
      at.path.push_back(new_elements[i]);
      auto match = std::find(old_elements.begin(), old_elements.end(), new_elements[i]);
      if (match == old_elements.end()) {
        added(new_items[i], at, out.changed);
      } else if (type.kind == ListKind::kMap) {
        const auto& old_item = old_items[static_cast<std::size_t>(match - old_elements.begin())];
        if (old_item.is_object() && new_items[i].is_object())
          diff_object(old_item.get_object(), new_items[i].get_object(), at, out);
        else if (!json_equal(old_item, new_items[i]))
          out.changed.insert(at.path);
      }
      at.path.pop_back();
    }
    for (std::size_t i = 0; i < old_items.size(); ++i) {
      if (std::find(new_elements.begin(), new_elements.end(), old_elements[i]) !=
          new_elements.end())
        continue;
      at.path.push_back(old_elements[i]);
      added(old_items[i], at, out.removed);
      at.path.pop_back();
    }
    return;
  }
  if (!json_equal(before, after)) {
    if (before.is_object() || before.is_array()) {
      FieldSet gone;
      collect(before, at, gone);
      out.removed = out.removed.union_with(gone);
    }
    added(after, at, out.changed);
  }
}

json::value merge_value(json::value live, const json::value& config, Cursor& at);

void merge_into(json::object& live, const json::object& config, Cursor& at) {
  for (const auto& [key, value] : config) {
    if (value.is_null()) {
      live.erase(key);
      continue;
    }
    at.enter_field(key);
    if (auto* existing = live.if_contains(key))
      *existing = merge_value(std::move(*existing), value, at);
    else
      live[key] = merge_value(json::value(), value, at);
    at.leave_field();
  }
}

json::value merge_value(json::value live, const json::value& config, Cursor& at) {
  if (const auto* object = config.if_object(); object != nullptr && !at.atomic_struct()) {
    if (!live.is_object()) live = json::object();
    merge_into(live.get_object(), *object, at);
    return live;
  }
  const ListType type = at.list();
  const auto* items = config.if_array();
  if (items == nullptr || type.kind == ListKind::kAtomic || !live.is_array()) return config;
  auto& merged = live.get_array();
  auto elements = elements_of(merged, type);
  const auto config_elements = elements_of(*items, type);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const auto& element = config_elements[i];
    auto match = element.starts_with("i:") ? elements.end()
                                           : std::find(elements.begin(), elements.end(), element);
    if (match == elements.end()) {
      merged.push_back((*items)[i]);
      elements.push_back(element);
    } else if (type.kind == ListKind::kMap) {
      at.path.push_back(element);
      auto& slot = merged[static_cast<std::size_t>(match - elements.begin())];
      slot = merge_value(std::move(slot), (*items)[i], at);
      at.path.pop_back();
    }
  }
  return live;
}

/// Removes the member at `path[depth..]` below `value`.
void remove_at(json::value& value, const FieldPath& path, std::size_t depth, Cursor& at) {
  const std::string& element = path[depth];
  const bool last = depth + 1 == path.size();
  if (element.starts_with("f:")) {
    auto* object = value.if_object();
    if (object == nullptr) return;
    const std::string field = element.substr(2);
    if (last) {
      object->erase(field);
      return;
    }
    auto* child = object->if_contains(field);
    if (child == nullptr) return;
    at.enter_field(field);
    remove_at(*child, path, depth + 1, at);
    at.leave_field();
    // A map or list emptied by the removal goes too, as omitempty drops it from typed objects.
    if ((child->is_object() && child->get_object().empty()) ||
        (child->is_array() && child->get_array().empty()))
      object->erase(field);
    return;
  }
  auto* array = value.if_array();
  if (array == nullptr) return;
  const auto elements = elements_of(*array, at.list());
  auto match = std::find(elements.begin(), elements.end(), element);
  if (match == elements.end()) return;
  auto index = static_cast<std::size_t>(match - elements.begin());
  if (last) {
    array->erase(array->begin() + static_cast<std::ptrdiff_t>(index));
    return;
  }
  at.path.push_back(element);
  remove_at((*array)[index], path, depth + 1, at);
  at.path.pop_back();
}

/// Fields nobody owns (structured-merge-diff's stripmeta).
FieldSet strip(FieldSet set) {
  static const std::vector<FieldPath> kUnowned = {{"f:apiVersion"},
                                                  {"f:kind"},
                                                  {"f:metadata", "f:name"},
                                                  {"f:metadata", "f:namespace"},
                                                  {"f:metadata", "f:uid"},
                                                  {"f:metadata", "f:resourceVersion"},
                                                  {"f:metadata", "f:generation"},
                                                  {"f:metadata", "f:creationTimestamp"},
                                                  {"f:metadata", "f:managedFields"},
                                                  {"f:metadata", "f:selfLink"},
                                                  {"f:metadata", "f:deletionTimestamp"},
                                                  {"f:metadata", "f:deletionGracePeriodSeconds"}};
  static const FieldPath kMetadata = {"f:metadata"};
  for (const auto& path : kUnowned) set.erase_prefix(path);
  if (set.contains(kMetadata)) {
    FieldSet self;
    self.insert(kMetadata);
    set = set.difference(self);
  }
  return set;
}

/// The first item of a keyed list below `value` that its key does not name, as
/// structured-merge-diff reports it; empty when there is none.
std::string unkeyed_item(const json::value& value, Cursor& at) {
  if (const auto* object = value.if_object(); object != nullptr && !at.atomic_struct()) {
    for (const auto& [key, member] : *object) {
      at.enter_field(key);
      std::string problem = unkeyed_item(member, at);
      at.leave_field();
      if (!problem.empty()) return problem;
    }
    return {};
  }
  const auto* array = value.if_array();
  const ListType type = at.list();
  if (array == nullptr || type.kind != ListKind::kMap) return {};
  for (std::size_t i = 0; i < array->size(); ++i) {
    if (item_element((*array)[i], type).empty()) {
      std::string path;
      for (const auto& name : at.names) path += "." + name;
      return path + ": element " + std::to_string(i) +
             ": associative list with keys has an element that omits key field \"" +
             std::string(type.keys.front()) + "\" (and doesn't have default value)";
    }
    std::string problem = unkeyed_item((*array)[i], at);
    if (!problem.empty()) return problem;
  }
  return {};
}

}  // namespace

std::string unkeyed_list_item(const json::object& configuration, std::string_view kind) {
  Cursor at{kind, {}, {}};
  return unkeyed_item(configuration, at);
}

FieldSet fields_of(const json::object& object, std::string_view kind) {
  Cursor at{kind, {}, {}};
  FieldSet out;
  collect_object(object, at, out);
  return strip(std::move(out));
}

Comparison compare(const json::object& before, const json::object& after, std::string_view kind) {
  Cursor at{kind, {}, {}};
  Comparison out;
  diff_object(before, after, at, out);
  out.changed = strip(std::move(out.changed));
  out.removed = strip(std::move(out.removed));
  return out;
}

json::object merge_configuration(json::object live, const json::object& configuration,
                                 std::string_view kind) {
  Cursor at{kind, {}, {}};
  merge_into(live, configuration, at);
  return live;
}

void remove_fields(json::object& object, const FieldSet& fields, std::string_view kind) {
  json::value root = std::move(object);
  // Parents first: a removed list item takes its fields along (removing its key fields first
  // would leave an item nothing names any more).
  fields.for_each([&](const FieldPath& path) {
    if (path.empty()) return;
    Cursor at{kind, {}, {}};
    remove_at(root, path, 0, at);
  });
  object = std::move(root.get_object());
}

}  // namespace rg::sim::apply
