// Store: versioned objects, event history, watch fan-out and list snapshots.
#include "sim/object_store.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <mutex>

#include "sim/api_error.hpp"
#include "sim/json_equal.hpp"
#include "sim/json_fields.hpp"
#include "sim/resource_types.hpp"
#include "sim/stored_object_parse.hpp"
#include "sim/wire_form.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

// A deleted object goes once its finalizers (a namespace's spec.finalizers too) are gone and its
// grace period is over (0: the kubelet's final delete). A pod no kubelet will stop -- unscheduled
// or finished -- goes at once, as the pod strategy's graceful-delete check makes it.
bool ready_to_delete(const ResourceType& type, const json::object& object) {
  const auto& metadata = object.at("metadata").as_object();
  if (!metadata.contains("deletionTimestamp")) return false;
  const auto* finalizers = metadata.if_contains("finalizers");
  if (finalizers != nullptr && finalizers->is_array() && !finalizers->get_array().empty())
    return false;
  // A namespace also waits for its spec.finalizers (the namespace controller's "kubernetes").
  if (type.group.empty() && type.resource == "namespaces")
    if (const auto* spec = object.if_contains("spec"); spec != nullptr && spec->is_object())
      if (const auto* pending = spec->get_object().if_contains("finalizers");
          pending != nullptr && pending->is_array() && !pending->get_array().empty())
        return false;
  const auto* grace = metadata.if_contains("deletionGracePeriodSeconds");
  if (grace == nullptr || !grace->is_int64() || grace->get_int64() == 0) return true;
  if (!type.group.empty() || type.resource != "pods") return false;
  const auto* spec = object.if_contains("spec");
  const auto* status = object.if_contains("status");
  const bool scheduled =
      spec != nullptr && spec->is_object() && !string_at(spec->get_object(), "nodeName").empty();
  const std::string phase =
      status != nullptr && status->is_object() ? string_at(status->get_object(), "phase") : "";
  return !scheduled || phase == "Succeeded" || phase == "Failed";
}

}  // namespace

Store::Store(StoreOptions options) : options_(options), random_(std::random_device{}()) {}

std::uint64_t Store::resource_version() const {
  std::shared_lock lock(mutex_);
  return resource_version_;
}

// Every served version of a resource shares its storage version's objects, events and watchers.
Store::TypeState& Store::state(const ResourceType& type) { return types_[&type.stored()]; }

const Store::TypeState* Store::find_state(const ResourceType& type) const {
  auto it = types_.find(&type.stored());
  return it == types_.end() ? nullptr : &it->second;
}

ObjectPtr Store::get(const ResourceType& type, std::string_view namespace_,
                     std::string_view name) const {
  std::shared_lock lock(mutex_);
  const auto* state = find_state(type);
  if (state == nullptr) return nullptr;
  return state->objects.find(object_key(type.namespaced ? namespace_ : "", name));
}

bool Store::holds(const ResourceType& type, const StoredObject& object) const {
  const ObjectPtr current = get(type, object.namespace_, object.name);
  return current != nullptr && current->uid == object.uid;
}

namespace {

ObjectListPtr list_of(const ObjectIndex& objects, std::string_view namespace_,
                      std::uint64_t resource_version) {
  return std::make_shared<ObjectList>(ObjectList{resource_version, {objects, namespace_}});
}

}  // namespace

ObjectListPtr Store::list(const ResourceType& type, std::string_view namespace_) const {
  std::shared_lock lock(mutex_);
  const auto* state = find_state(type);
  if (state == nullptr) return list_of({}, namespace_, resource_version_);
  return list_of(state->objects, namespace_, resource_version_);
}

ObjectListPtr Store::list_at(const ResourceType& type, std::string_view namespace_,
                             std::uint64_t resource_version) const {
  std::shared_lock lock(mutex_);
  if (resource_version > resource_version_)
    throw errors::too_large_resource_version(resource_version, resource_version_);
  const auto* state = find_state(type);
  if (state == nullptr) return list_of({}, namespace_, resource_version);
  if (resource_version < state->compacted) return nullptr;
  if (state->last_change <= resource_version)
    return list_of(state->objects, namespace_, resource_version);
  auto it = state->snapshots.find(resource_version);
  if (it == state->snapshots.end()) return nullptr;
  return list_of(it->second.objects, namespace_, resource_version);
}

void Store::keep_snapshot(const ResourceType& type, const ObjectList& list) {
  std::unique_lock lock(mutex_);
  auto& snapshots = state(type).snapshots;
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(snapshots, [&](const auto& entry) {
    return now - entry.second.taken > options_.snapshot_ttl;
  });
  while (snapshots.size() >= options_.max_snapshots && !snapshots.empty()) {
    auto oldest = std::min_element(snapshots.begin(), snapshots.end(), [](auto& a, auto& b) {
      return a.second.taken < b.second.taken;
    });
    snapshots.erase(oldest);
  }
  snapshots.insert_or_assign(list.resource_version, Snapshot{list.items.index(), now});
}

std::string Store::new_uid() {
  std::uniform_int_distribution<std::uint64_t> any;
  std::uint64_t high = any(random_);
  std::uint64_t low = any(random_);
  high = (high & ~0xF000ULL) | 0x4000ULL;                       // version 4
  low = (low & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                     high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFULL);
}

void Store::publish(TypeState& state, StoreEvent event) const {
  const auto& ns = event.object->namespace_;
  std::erase_if(state.watchers, [](const auto& watcher) { return watcher->closed(); });
  for (const auto& watcher : state.watchers)
    if (watcher->namespace_filter().empty() || watcher->namespace_filter() == ns)
      watcher->push(event);
  state.last_change = event.object->resource_version;
  state.history.push_back(std::move(event));
  while (state.history.size() > options_.watch_history) {
    state.compacted = state.history.front().object->resource_version;
    state.history.pop_front();
  }
}

ObjectPtr Store::create(const ResourceType& type, json::object object, bool dry_run) {
  std::unique_lock lock(mutex_);
  auto& state = this->state(type);
  auto& metadata = object_at(object, "metadata");
  std::string name = string_at(metadata, "name");
  const std::string ns = type.namespaced ? string_at(metadata, "namespace") : std::string();
  if (name.empty()) {
    const std::string prefix = string_at(metadata, "generateName");
    static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
    for (int attempt = 0; attempt < 8 && name.empty(); ++attempt) {
      std::string candidate = prefix;
      for (int i = 0; i < 5; ++i) candidate += kAlphabet[pick(random_)];
      if (!state.objects.contains(object_key(ns, candidate))) name = std::move(candidate);
    }
    if (name.empty()) throw errors::already_exists(type, prefix);
    metadata["name"] = name;
  }
  const std::string key = object_key(ns, name);
  if (state.objects.contains(key)) throw errors::already_exists(type, name);
  // NamespaceLifecycle admission, atomically with a namespace's deletion (one lock): nothing new
  // in a namespace being terminated or deleted, from the simulated controllers (which write the
  // store directly; a ReplicaSet's controller may still act on its cache) as from API requests.
  const auto& namespaces = ResourceTypes::builtin().namespaces;
  if (type.namespaced) {
    if (deleted_namespaces_.contains(ns)) throw errors::not_found(namespaces, ns);
    if (const auto* namespaces_state = find_state(namespaces))
      if (auto owner = namespaces_state->objects.find(object_key("", ns));
          owner && owner->body.find("\"deletionTimestamp\"") != std::string::npos)
        throw errors::namespace_terminating(type, name, ns);
  } else if (&type.stored() == &namespaces && !dry_run) {
    deleted_namespaces_.erase(name);
  }
  if (!type.namespaced) metadata.erase("namespace");
  metadata["uid"] = new_uid();
  metadata["creationTimestamp"] = client::format_time(std::chrono::system_clock::now());
  if (!dry_run) metadata["resourceVersion"] = std::to_string(resource_version_ + 1);
  // (Last: it may move the fields `metadata` refers to.)
  if (type.wire != nullptr) to_wire_form(*type.wire, object);
  auto stored = make_stored_object(type, object);
  if (dry_run) return stored;
  ++resource_version_;
  state.objects.insert(stored);
  owners_.add({&type.stored(), key}, OwnerIndex::owner_uids(object));
  publish(state, {EventType::kAdded, stored, nullptr});
  return stored;
}

ObjectPtr Store::update(const ResourceType& type, std::string_view namespace_,
                        std::string_view name, const Mutation& mutate, bool dry_run) {
  // The mutation's copy shares the current object's arena (boost::json copies keep the source's
  // memory resource).
  const auto edit_copy = [&](const StoredObject& current, const json::object& object) {
    return mutate(current, json::object(object));
  };
  return rewrite(type, namespace_, name, edit_copy, dry_run);
}

ObjectPtr Store::rewrite(const ResourceType& type, std::string_view namespace_,
                         std::string_view name, const Rewrite& build, bool dry_run,
                         std::optional<json::object>* written) {
  std::unique_lock lock(mutex_);
  auto& state = this->state(type);
  ObjectPtr current = state.objects.find(object_key(type.namespaced ? namespace_ : "", name));
  if (current == nullptr) throw errors::not_found(type, name);
  // The DOMs of this write (the parsed current state, the mutation's copies) live in one arena:
  // a few blocks instead of a heap allocation per node. Shared, so a value that escapes the
  // mutation keeps its memory alive.
  json::object before = parse_stored_object(
      *current, json::make_shared_resource<json::monotonic_resource>(4 * current->body.size()));
  json::object after = build(*current, before);
  // Identity and bookkeeping fields are the store's, whatever the mutation did. (Keys are
  // inserted before taking references into the object: insertion may reallocate.)
  after["kind"] = before.at("kind");
  after["apiVersion"] = before.at("apiVersion");
  auto& metadata = object_at(after, "metadata");
  const auto& old_metadata = before.at("metadata").as_object();
  for (auto field : {"name", "namespace", "uid", "creationTimestamp"}) {
    if (const auto* value = old_metadata.if_contains(field))
      metadata[field] = *value;
    else
      metadata.erase(field);
  }
  metadata["resourceVersion"] = old_metadata.at("resourceVersion");
  if (type.wire != nullptr) to_wire_form(*type.wire, after);
  ObjectPtr result;
  if (json_equal(after, before)) {
    result = current;
  } else if (dry_run) {
    result = make_stored_object(type, after);
  } else if (ready_to_delete(type, after)) {
    return remove_locked(type, state, current, written);
  } else {
    object_at(after, "metadata")["resourceVersion"] = std::to_string(resource_version_ + 1);
    result = make_stored_object(type, after);
    ++resource_version_;
    state.objects.insert(result);
    owners_.update({&type.stored(), current->key()}, before, after);
    publish(state, {EventType::kModified, result, current});
  }
  if (written != nullptr) written->emplace(std::move(after));
  return result;
}

ObjectPtr Store::remove_locked(const ResourceType& type, TypeState& state, const ObjectPtr& current,
                               std::optional<json::object>* written) {
  json::object last = current->parse();
  object_at(last, "metadata")["resourceVersion"] = std::to_string(resource_version_ + 1);
  auto stored = make_stored_object(type, last);
  ++resource_version_;
  state.objects.erase(current->key());
  owners_.remove({&type.stored(), current->key()}, OwnerIndex::owner_uids(last));
  if (type.group.empty() && type.resource == "namespaces")
    deleted_namespaces_.insert(current->name);
  publish(state, {EventType::kDeleted, stored, current});
  if (written != nullptr) written->emplace(std::move(last));
  return stored;
}

ObjectPtr Store::remove(const ResourceType& type, std::string_view namespace_,
                        std::string_view name,
                        const std::function<void(const StoredObject&)>& check) {
  std::unique_lock lock(mutex_);
  auto& state = this->state(type);
  ObjectPtr current = state.objects.find(object_key(type.namespaced ? namespace_ : "", name));
  if (current == nullptr) throw errors::not_found(type, name);
  if (check) check(*current);
  return remove_locked(type, state, current);
}

std::vector<ObjectPtr> Store::dependents(std::string_view owner_uid) const {
  std::shared_lock lock(mutex_);
  std::vector<ObjectPtr> found;
  for (const auto& [type, key] : owners_.dependents(owner_uid)) {
    const auto* state = find_state(*type);
    if (state == nullptr) continue;
    if (auto object = state->objects.find(key)) found.push_back(std::move(object));
  }
  return found;
}

WatchStart Store::watch(const ResourceType& type, std::string_view namespace_,
                        std::optional<std::uint64_t> from) {
  std::unique_lock lock(mutex_);
  auto& state = this->state(type);
  WatchStart start;
  start.watcher = std::make_shared<Watcher>(type.namespaced ? std::string(namespace_) : "",
                                            options_.watcher_capacity);
  if (!from) {
    start.initial = list_of(state.objects, start.watcher->namespace_filter(), resource_version_);
  } else {
    if (*from > resource_version_)
      throw errors::too_large_resource_version(*from, resource_version_);
    if (*from < state.compacted)
      throw errors::expired(
          fmt::format("too old resource version: {} ({})", *from, state.compacted));
    auto first = std::upper_bound(state.history.begin(), state.history.end(), *from,
                                  [](std::uint64_t rv, const StoreEvent& event) {
                                    return rv < event.object->resource_version;
                                  });
    const auto& filter = start.watcher->namespace_filter();
    for (auto it = first; it != state.history.end(); ++it)
      if (filter.empty() || filter == it->object->namespace_) start.watcher->push(*it);
  }
  state.watchers.push_back(start.watcher);
  return start;
}

void Store::unwatch(const ResourceType& type, const std::shared_ptr<Watcher>& watcher) {
  watcher->close();
  std::unique_lock lock(mutex_);
  std::erase(state(type).watchers, watcher);
}

void Store::reassign(const ResourceType& from, const ResourceType& to,
                     const std::function<ObjectPtr(const ObjectPtr&)>& rewrap) {
  std::unique_lock lock(mutex_);
  auto it = types_.find(&from);
  if (it == types_.end()) return;
  TypeState old = std::move(it->second);
  types_.erase(it);
  for (const auto& watcher : old.watchers) watcher->close();
  TypeState& moved = types_[&to];
  for (const auto& object : old.objects) moved.objects.insert(rewrap(object));
  moved.compacted = resource_version_;
  moved.last_change = old.last_change;
  owners_.retype(&from, &to);
}

void Store::close_all_watchers() {
  std::unique_lock lock(mutex_);
  for (auto& [type, state] : types_) {
    for (const auto& watcher : state.watchers) watcher->close();
    state.watchers.clear();
  }
}

void Store::compact() {
  std::unique_lock lock(mutex_);
  for (auto& [type, state] : types_) {
    state.history.clear();
    state.snapshots.clear();
    state.compacted = resource_version_;
  }
}

}  // namespace rg::sim
