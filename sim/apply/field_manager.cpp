// managedFields bookkeeping and server-side apply (see field_manager.hpp), after
// structured-merge-diff's Updater and apimachinery's fieldmanager.
#include "sim/apply/field_manager.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

#include "sim/api_error.hpp"
#include "sim/apply/managed_fields.hpp"
#include "sim/apply/object_fields.hpp"
#include "sim/object_store.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

/// The fields a write may own or change: the main resource of a kind with a status subresource
/// never status, the status subresource only status, the scale subresource only spec.replicas
/// (the registry strategies' reset fields).
FieldSet owned_part(FieldSet fields, const WriteTarget& target) {
  if (target.subresource == "status") return fields.only_prefix({"f:status"});
  if (target.subresource == "scale") return fields.only_prefix({"f:spec", "f:replicas"});
  if (target.has_status_subresource) return fields.without_prefix({"f:status"});
  return fields;
}

ManagedFieldsEntry writer_entry(const WriteTarget& target, std::string_view operation) {
  ManagedFieldsEntry entry;
  entry.manager = std::string(target.manager);
  entry.operation = std::string(operation);
  entry.api_version = std::string(target.api_version);
  entry.subresource = std::string(target.subresource);
  return entry;
}

/// The managedFields a write is recorded in, as `after`'s own array: those sent in `after` when
/// they differ from `before`'s (clients reset or migrate ownership that way), else `before`'s.
/// Entries not in the encoded form are encoded, those that are no entry dropped.
json::array& recorded_entries(const json::object& before, json::object& after) {
  const json::value* old_list = nullptr;
  if (const auto* metadata = before.if_contains("metadata"); metadata != nullptr)
    if (const auto* object = metadata->if_object()) old_list = object->if_contains("managedFields");
  auto& metadata_value = after["metadata"];
  if (!metadata_value.is_object()) metadata_value = json::object(after.storage());
  auto& metadata = metadata_value.get_object();
  const bool sent = metadata.contains("managedFields");
  auto& list = metadata["managedFields"];
  if (!sent && old_list != nullptr) list = *old_list;  // a copy in `after`'s memory
  if (!list.is_array()) list = json::array(after.storage());
  auto& items = list.get_array();
  for (auto it = items.begin(); it != items.end();) {
    if (is_encoded_entry(*it)) {
      ++it;
      continue;
    }
    auto entry = entry_of(*it);
    if (!entry || entry->fields.empty()) {
      it = items.erase(it);
      continue;
    }
    *it = encode_entry(*entry, items.storage());
    ++it;
  }
  return items;
}

/// Whether the encoded entry `item` owns a member of `fields`.
bool holds_any(const json::object& item, const FieldSet& fields) {
  bool holds = false;
  const auto& owned = item.at("fieldsV1");
  fields.for_each(
      [&](const FieldPath& path) { holds = holds || FieldSet::encoded_contains(owned, path); });
  return holds;
}

/// `"<manager>"`, with its subresource and, for Update entries, the apiVersion.
std::string describe_manager(const ManagedFieldsEntry& entry) {
  std::string out = fmt::format("\"{}\"", entry.manager);
  if (!entry.subresource.empty()) out += fmt::format(" with subresource \"{}\"", entry.subresource);
  if (entry.operation == "Update") out += fmt::format(" using {}", entry.api_version);
  return out;
}

struct Conflict {
  std::string manager;  // as described
  std::string path;     // as displayed
};

ApiError apply_conflict(std::vector<Conflict> conflicts) {
  std::stable_sort(conflicts.begin(), conflicts.end(),
                   [](const auto& a, const auto& b) { return a.manager < b.manager; });
  client::Status status;
  status.status = "Failure";
  status.code = 409;
  status.reason = "Conflict";
  client::StatusDetails details;
  for (const auto& conflict : conflicts)
    details.causes.push_back(
        {"FieldManagerConflict", fmt::format("conflict with {}", conflict.manager), conflict.path});
  if (conflicts.size() == 1) {
    status.message = fmt::format("Apply failed with 1 conflict: conflict with {}: {}",
                                 conflicts.front().manager, conflicts.front().path);
  } else {
    std::vector<std::string> lines;
    std::string last;
    for (const auto& conflict : conflicts) {
      if (lines.empty() || conflict.manager != last)
        lines.push_back(fmt::format("conflicts with {}:", conflict.manager));
      last = conflict.manager;
      lines.push_back(fmt::format("- {}", conflict.path));
    }
    status.message =
        fmt::format("Apply failed with {} conflicts: {}", conflicts.size(), fmt::join(lines, "\n"));
  }
  status.details = std::move(details);
  return ApiError(std::move(status));
}

/// A configuration structured-merge-diff cannot type. The API server's field manager returns a
/// plain error here (fmt.Errorf in its structuredmerge.go), answered as a 500 without a reason:
/// kubectl prints "Error from server: failed to create typed patch object (...)".
ApiError untyped_configuration(const json::object& live, const WriteTarget& target,
                               std::string_view problem) {
  std::string name;
  if (const auto* metadata = live.if_contains("metadata"); metadata && metadata->is_object()) {
    for (const char* key : {"namespace", "name"}) {
      const auto* value = metadata->get_object().if_contains(key);
      if (value != nullptr && value->is_string()) {
        name += (name.empty() ? "" : "/") + std::string(value->get_string());
      }
    }
  }
  client::Status status;
  status.status = "Failure";
  status.code = 500;
  status.message = fmt::format("failed to create typed patch object ({}; {}, Kind={}): {}", name,
                               target.api_version, target.kind, problem);
  return ApiError(std::move(status));
}

}  // namespace

void record_update(const json::object* before, json::object& after, const WriteTarget& target) {
  static const json::object kNothing;
  const json::object& old = before != nullptr ? *before : kNothing;
  const Comparison changes = compare(old, after, target.kind);
  const FieldSet changed = owned_part(changes.changed, target);
  const FieldSet removed = owned_part(changes.removed, target);
  const FieldSet touched = changed.union_with(removed);
  const ManagedFieldsEntry writer = writer_entry(target, "Update");
  json::array& items = recorded_entries(old, after);
  bool found = false;
  for (auto it = items.begin(); it != items.end();) {
    ManagedFieldsEntry entry = owner_of(it->get_object());
    const bool own = same_owner(entry, writer);
    found = found || own;
    if (!own && !holds_any(it->get_object(), touched)) {
      ++it;  // untouched: stays as it is
      continue;
    }
    entry.fields = FieldSet::from_json(it->get_object().at("fieldsV1"));
    FieldSet next = own ? entry.fields.difference(removed).union_with(changed)
                        : entry.fields.difference(changed).difference(removed);
    if (own && (next != entry.fields || !changed.empty()))
      entry.time = client::format_time(std::chrono::system_clock::now());
    else if (next == entry.fields) {
      ++it;
      continue;
    }
    if (next.empty()) {
      it = items.erase(it);
      continue;
    }
    entry.fields = std::move(next);
    *it = encode_entry(entry, items.storage());
    ++it;
  }
  if (!found && !changed.empty()) {
    ManagedFieldsEntry entry = writer;
    entry.time = client::format_time(std::chrono::system_clock::now());
    entry.fields = changed;
    items.push_back(encode_entry(entry, items.storage()));
  }
  sort_entries(items);
  if (items.empty()) after.at("metadata").get_object().erase("managedFields");
}

json::object server_side_apply(const json::object& live, const json::object& configuration,
                               const WriteTarget& target, bool force) {
  if (std::string problem = unkeyed_list_item(configuration, target.kind); !problem.empty()) {
    throw untyped_configuration(live, target, problem);
  }
  auto entries = managed_fields_of(live);
  const ManagedFieldsEntry applier = writer_entry(target, "Apply");
  const FieldSet applied = owned_part(fields_of(configuration, target.kind), target);
  FieldSet previously;
  FieldSet others;
  for (const auto& entry : entries) {
    if (same_owner(entry, applier))
      previously = entry.fields;
    else
      others = others.union_with(entry.fields);
  }

  json::object merged = merge_configuration(live, configuration, target.kind);
  // Prune what this manager applied before and no longer does, unless someone else owns it.
  FieldSet stale;
  previously.difference(applied).for_each([&](const FieldPath& path) {
    if (!applied.contains_prefix(path) && !others.contains_prefix(path)) stale.insert(path);
  });
  remove_fields(merged, stale, target.kind);

  // What the write may change at all: status changes sent to the main resource are reset by
  // the registry, so they neither conflict nor take ownership away.
  const Comparison raw = compare(live, merged, target.kind);
  const Comparison changes{owned_part(raw.changed, target), owned_part(raw.removed, target)};
  std::vector<Conflict> conflicts;
  for (auto& entry : entries) {
    if (same_owner(entry, applier)) continue;
    const FieldSet contested = entry.fields.intersection(changes.changed);
    if (!force)
      contested.for_each([&](const FieldPath& path) {
        conflicts.push_back({describe_manager(entry), display_path(path)});
      });
    entry.fields = entry.fields.difference(contested).difference(changes.removed);
  }
  if (!conflicts.empty()) throw apply_conflict(std::move(conflicts));

  std::erase_if(entries, [&](const auto& entry) { return same_owner(entry, applier); });
  ManagedFieldsEntry entry = applier;
  entry.time = client::format_time(std::chrono::system_clock::now());
  entry.fields = applied;
  entries.push_back(std::move(entry));
  store_entries(merged, entries);
  return merged;
}

}  // namespace rg::sim::apply
