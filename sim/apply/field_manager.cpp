// managedFields bookkeeping and server-side apply (see field_manager.hpp), after
// structured-merge-diff's Updater and apimachinery's fieldmanager.
#include "sim/apply/field_manager.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "sim/api_error.hpp"
#include "sim/apply/object_fields.hpp"
#include "sim/json_equal.hpp"
#include "sim/json_fields.hpp"
#include "sim/object_store.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

/// Two entries are the same owner: Apply entries by manager (and subresource), Update entries
/// also by apiVersion (apimachinery's BuildManagerIdentifier).
bool same_owner(const ManagedFieldsEntry& a, const ManagedFieldsEntry& b) {
  return a.manager == b.manager && a.operation == b.operation && a.subresource == b.subresource &&
         (a.operation == "Apply" || a.api_version == b.api_version);
}

/// The fields a write may own or change: the main resource of a kind with a status subresource
/// never status, the status subresource only status, the scale subresource only spec.replicas
/// (the registry strategies' reset fields).
FieldSet owned_part(FieldSet fields, const WriteTarget& target) {
  if (target.subresource == "status") return fields.only_prefix({"f:status"});
  if (target.subresource == "scale") return fields.only_prefix({"f:spec", "f:replicas"});
  if (target.has_status_subresource) return fields.without_prefix({"f:status"});
  return fields;
}

json::array encode(std::vector<ManagedFieldsEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const auto& p, const auto& q) {
    return std::tie(p.operation, p.time, p.manager, p.api_version, p.subresource) <
           std::tie(q.operation, q.time, q.manager, q.api_version, q.subresource);
  });
  json::array out;
  for (const auto& entry : entries) {
    if (entry.fields.empty()) continue;
    json::object item{{"manager", entry.manager},
                      {"operation", entry.operation},
                      {"apiVersion", entry.api_version}};
    if (!entry.time.empty()) item["time"] = entry.time;
    item["fieldsType"] = "FieldsV1";
    item["fieldsV1"] = entry.fields.to_json();
    if (!entry.subresource.empty()) item["subresource"] = entry.subresource;
    out.push_back(std::move(item));
  }
  return out;
}

void store_entries(json::object& object, std::vector<ManagedFieldsEntry> entries) {
  auto& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  auto encoded = encode(std::move(entries));
  if (encoded.empty())
    metadata.get_object().erase("managedFields");
  else
    metadata.get_object()["managedFields"] = std::move(encoded);
}

ManagedFieldsEntry writer_entry(const WriteTarget& target, std::string_view operation) {
  ManagedFieldsEntry entry;
  entry.manager = std::string(target.manager);
  entry.operation = std::string(operation);
  entry.api_version = std::string(target.api_version);
  entry.subresource = std::string(target.subresource);
  return entry;
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

}  // namespace

std::vector<ManagedFieldsEntry> managed_fields_of(const json::object& object) {
  std::vector<ManagedFieldsEntry> entries;
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return entries;
  const auto* list = metadata->get_object().if_contains("managedFields");
  if (list == nullptr || !list->is_array()) return entries;
  for (const auto& item : list->get_array()) {
    const auto* fields = item.is_object() ? item.get_object().if_contains("fieldsV1") : nullptr;
    if (fields == nullptr) continue;
    ManagedFieldsEntry entry;
    const auto& object_item = item.get_object();
    entry.manager = string_at(object_item, "manager");
    entry.operation = string_at(object_item, "operation");
    entry.api_version = string_at(object_item, "apiVersion");
    entry.time = string_at(object_item, "time");
    entry.subresource = string_at(object_item, "subresource");
    if (entry.operation != "Apply" && entry.operation != "Update") continue;
    try {
      entry.fields = FieldSet::from_json(*fields);
    } catch (const std::invalid_argument&) {
      continue;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

void record_update(const json::object* before, json::object& after, const WriteTarget& target) {
  static const json::object kNothing;
  const json::object& old = before != nullptr ? *before : kNothing;
  auto entries = managed_fields_of(old);
  if (const auto* metadata = after.if_contains("metadata");
      metadata != nullptr && metadata->is_object() &&
      metadata->get_object().contains("managedFields")) {
    const auto* old_metadata = old.if_contains("metadata");
    const json::value* old_fields = old_metadata != nullptr && old_metadata->is_object()
                                        ? old_metadata->get_object().if_contains("managedFields")
                                        : nullptr;
    const auto& sent = metadata->get_object().at("managedFields");
    if (old_fields == nullptr || !json_equal(*old_fields, sent)) entries = managed_fields_of(after);
  }
  const Comparison changes = compare(old, after, target.kind);
  const FieldSet changed = owned_part(changes.changed, target);
  const FieldSet removed = owned_part(changes.removed, target);
  const ManagedFieldsEntry writer = writer_entry(target, "Update");
  bool found = false;
  for (auto& entry : entries) {
    if (same_owner(entry, writer)) {
      found = true;
      FieldSet next = entry.fields.difference(removed).union_with(changed);
      if (next != entry.fields || !changed.empty())
        entry.time = client::format_time(std::chrono::system_clock::now());
      entry.fields = std::move(next);
    } else {
      entry.fields = entry.fields.difference(changed).difference(removed);
    }
  }
  if (!found && !changed.empty()) {
    ManagedFieldsEntry entry = writer;
    entry.time = client::format_time(std::chrono::system_clock::now());
    entry.fields = changed;
    entries.push_back(std::move(entry));
  }
  store_entries(after, std::move(entries));
}

json::object server_side_apply(const json::object& live, const json::object& configuration,
                               const WriteTarget& target, bool force) {
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
  store_entries(merged, std::move(entries));
  return merged;
}

}  // namespace rg::sim::apply
