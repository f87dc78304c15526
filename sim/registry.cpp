// Registry: create/update/delete of objects (see registry.hpp); the per-kind rules it applies
// live in sim/apply/strategy.
#include "sim/registry.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

#include "sim/api_error.hpp"
#include "sim/apply/field_manager.hpp"
#include "sim/apply/strategy.hpp"
#include "sim/json_equal.hpp"
#include "sim/json_fields.hpp"
#include "sim/query_params.hpp"
#include "sim/scale_view.hpp"
#include "sim/service_account_controller.hpp"
#include "sim/version_conversion.hpp"
#include "sim/version_ownership.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

// Whether a write moves metadata.generation: a change of spec for built-in kinds; for custom
// resources any change but of metadata (KAE pkg/registry/customresource/strategy.go
// PrepareForUpdate; status is already the old one when the CRD has a status subresource).
bool generation_changed(const ResourceType& type, const json::object& before,
                        const json::object& after) {
  if (type.custom) {
    if (before.size() != after.size()) return true;
    for (const auto& [key, value] : after) {
      if (key == "metadata") continue;
      const auto* old = before.if_contains(key);
      if (old == nullptr || !json_equal(*old, value)) return true;
    }
    return false;
  }
  const auto* a = before.if_contains("spec");
  const auto* b = after.if_contains("spec");
  if (a == nullptr || b == nullptr) return a != b;
  return !json_equal(*a, *b);
}

}  // namespace

std::string manager_from_user_agent(std::string_view user_agent) {
  return std::string(user_agent.substr(0, user_agent.find('/')));
}

Registry::Registry(Store& store, const ResourceTable& table) : store_(store), table_(table) {}

void Registry::bootstrap() {
  const auto* namespaces = table_.find("", "v1", "namespaces");
  for (std::string_view name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (store_.get(*namespaces, "", name)) continue;
    json::object ns{
        {"kind", "Namespace"},
        {"apiVersion", "v1"},
        {"metadata", json::object{{"name", name},
                                  {"labels", json::object{{"kubernetes.io/metadata.name", name}}}}},
        {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}}};
    create(*namespaces, "", std::move(ns), {"kube-apiserver"});
  }
}

json::object Registry::view_of(const StoredObject& object, std::string_view subresource) const {
  json::object full = object.parse();
  if (subresource != "scale") return full;
  return scale_of(*object.type, full);
}

json::object Registry::get(const ResourceType& type, std::string_view namespace_,
                           std::string_view name, std::string_view subresource) const {
  auto object = store_.get(type.stored(), namespace_, name);
  if (!object) throw errors::not_found(type, name);
  if (subresource == "scale") return scale_of(type, object->parse());
  return convert_to(type, object->parse());
}

ObjectPtr Registry::read(const ResourceType& type, std::string_view namespace_,
                         std::string_view name) const {
  auto object = store_.get(type.stored(), namespace_, name);
  if (!object) throw errors::not_found(type, name);
  return in_version(type, object);
}

namespace {

apply::WriteTarget write_target(const ResourceType& type, std::string_view subresource,
                                const std::string& manager) {
  return {type.kind, type.group_version(), type.has_status(), subresource, manager};
}

// Records an update in `after`'s managedFields as the request's version sees the object: the
// entry carries that apiVersion and its field paths (`before` and `after` are in the storage
// version).
void record_write(const ResourceType& type, std::string_view subresource,
                  const json::object& before, json::object& after, const std::string& manager) {
  const auto target = write_target(type, subresource, manager);
  if (&type.stored() == &type) {
    apply::record_update(&before, after, target);
    return;
  }
  const json::object before_view = convert_to(type, before);
  json::object after_view = convert_to(type, after);
  apply::record_update(&before_view, after_view, target);
  auto& metadata = object_at(after, "metadata");
  if (const auto* fields = object_at(after_view, "metadata").if_contains("managedFields"))
    metadata["managedFields"] = *fields;
  else
    metadata.erase("managedFields");
}

}  // namespace

ObjectPtr Registry::create(const ResourceType& type, std::string_view namespace_,
                           json::object object, const WriteContext& context) {
  const ResourceType& stored = type.stored();
  // KAE pkg/registry/customresource/strategy.go PrepareForCreate: with a status subresource
  // (of the version written through), create cannot set status.
  if (type.custom && type.has_status()) object.erase("status");
  bool recorded = context.managed_fields_recorded;
  if (&stored != &type) {
    // Another version of a stored resource: the manager owns what it sent, in its version.
    object["kind"] = type.kind;
    object["apiVersion"] = type.group_version();
    if (!recorded)
      apply::record_update(nullptr, object, write_target(type, "", context.field_manager));
    recorded = true;
    object = convert_to(stored, std::move(object));
  }
  prepare_create(stored, namespace_, object);
  if (!recorded)
    apply::record_update(nullptr, object, write_target(type, "", context.field_manager));
  auto created = store_.create(stored, std::move(object), context.dry_run);
  if (apply::is_definition(type) && !context.dry_run) settle_definition(created->name);
  if (type.group.empty() && type.resource == "namespaces" && !context.dry_run)
    ensure_default_service_account(*this, created->name);
  return in_version(type, created);
}

const ResourceType* Registry::find(std::string_view group, std::string_view version,
                                   std::string_view resource) const {
  if (const auto* type = table_.find(group, version, resource)) return type;
  return custom_.find(group, version, resource);
}

std::vector<const ResourceType*> Registry::served_types() const {
  std::vector<const ResourceType*> types;
  for (const auto& type : table_.types()) types.push_back(&type);
  for (const auto* type : custom_.types()) types.push_back(type);
  return types;
}

void Registry::remove_all(const ResourceType& type) {
  const auto objects = store_.list(type, "");
  for (const auto& object : objects->items) {
    try {
      store_.remove(type, object->namespace_, object->name);
    } catch (const ApiError&) {
      // Deleted meanwhile.
    }
  }
}

void Registry::sync_definition(const StoredObject& definition, bool deleted) {
  apply::StorageChange change;
  if (deleted) {
    change = custom_.undefine(definition.name);
  } else {
    const json::object crd = definition.parse();
    change = custom_.define(definition.name, crd.at("spec").as_object(),
                            apply::versions_of_definition(crd));
  }
  if (change.before == nullptr) return;
  if (change.after == nullptr) {
    remove_all(*change.before);
    return;
  }
  const ResourceType& storage = *change.after;
  store_.reassign(*change.before, storage,
                  [&](const ObjectPtr& object) { return in_version(storage, object); });
}

void Registry::settle_definition(std::string_view name) {
  // What the apiextensions-apiserver's controllers do after a definition is written, before
  // the writer hears back here: the naming controller accepts the names (status write), the
  // API starts serving the kinds, the establishing controller sets Established (status write).
  const auto& definitions = *table_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  const WriteContext controller{"kube-apiserver"};
  using Step = std::optional<json::object> (*)(const json::object&);
  auto write_status = [&](Step step) {
    auto intent = [&](json::object crd) {
      if (auto status = step(crd)) crd["status"] = std::move(*status);
      return crd;
    };
    return update(definitions, "", name, "status", intent, controller);
  };
  try {
    auto named = write_status(&apply::names_accepted_status);
    sync_definition(*named, false);
    write_status(&apply::established_status);
  } catch (const ApiError&) {
    // Deleted meanwhile.
  }
}

void Registry::prepare_create(const ResourceType& type, std::string_view namespace_,
                              json::object& object) {
  // Keys are inserted before taking references into the object (insertion may reallocate).
  object["kind"] = type.kind;
  object["apiVersion"] = type.group_version();
  auto& metadata = object_at(object, "metadata");
  std::string name = string_at(metadata, "name");
  std::string generate_name = string_at(metadata, "generateName");
  if (type.namespaced) {
    std::string object_ns = string_at(metadata, "namespace");
    if (!object_ns.empty() && object_ns != namespace_)
      throw errors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    metadata["namespace"] = namespace_;
    // NamespaceLifecycle for API requests: a namespace that never existed is NotFound here.
    // Store::create checks a terminating or deleted namespace again, atomically with its deletion
    // and for every writer (the simulated controllers too). Unlike the API server, which runs
    // validating admission after the strategy's validation, this answers before validation.
    const auto* namespaces = table_.find("", "v1", "namespaces");
    auto ns = store_.get(*namespaces, "", namespace_);
    if (!ns) throw errors::not_found(*namespaces, namespace_);
    if (ns->body.find("\"deletionTimestamp\"") != std::string::npos)
      throw errors::namespace_terminating(type, name, namespace_);
  } else {
    metadata.erase("namespace");
  }
  if (name.empty() && generate_name.empty())
    throw errors::invalid(type.group, type.kind, "",
                          {{"FieldValueRequired", "metadata.name",
                            "Required value: name or generateName is required"}});
  if (!name.empty())
    if (auto problem = apply::name_problem(type, name); !problem.empty())
      throw errors::invalid(type.group, type.kind, name,
                            {{"FieldValueInvalid", "metadata.name", problem}});
  for (auto field : {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                     "deletionGracePeriodSeconds", "selfLink"})
    metadata.erase(field);
  if (object.contains("spec") || type.custom) metadata["generation"] = 1;
  apply::reset_status_on_create(type, object);
  apply::apply_defaults(type, object);
  apply::validate(type, object);
  if (apply::is_definition(type)) {
    apply::default_definition(object);
    object["status"] = apply::written_definition_status(object, nullptr);
  }
}

ObjectPtr Registry::update(const ResourceType& type, std::string_view namespace_,
                           std::string_view name, std::string_view subresource,
                           const Intent& intent, const WriteContext& context, json::object* scale) {
  // `before` and what the mutation returns are in the storage version; the intent works on the
  // request's version.
  const ResourceType& stored = type.stored();
  const bool converted = &stored != &type;
  // The DOMs built here stay in the arena of the write's parsed `before`.
  auto mutation = [&](const StoredObject& current, const json::object& before) {
    json::object view = subresource == "scale" ? scale_of(type, before, before.storage())
                                               : convert_to(type, before);
    json::object wanted = intent(std::move(view));
    if (converted) {
      wanted["kind"] = type.kind;
      wanted["apiVersion"] = type.group_version();
    }
    auto& wanted_meta = object_at(wanted, "metadata");
    std::string rv = string_at(wanted_meta, "resourceVersion");
    if (!rv.empty() && rv != std::to_string(current.resource_version))
      throw errors::conflict(type, name);
    std::string wanted_name = string_at(wanted_meta, "name");
    if (!wanted_name.empty() && wanted_name != name)
      throw errors::bad_request(
          fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                      wanted_name, name));

    json::object after(before.storage());
    if (subresource == "scale") {
      after = before;
      json::value replicas = 0;
      if (const auto* spec = find_object(wanted, "spec"))
        if (const auto* r = spec->if_contains("replicas")) replicas = *r;
      set_scale_replicas(type, after, std::move(replicas));
    } else if (subresource == "status") {
      after = before;
      const json::object wanted_stored = converted ? convert_to(stored, wanted) : json::object();
      const json::object& source = converted ? wanted_stored : wanted;
      if (const auto* status = source.if_contains("status"))
        after["status"] = *status;
      else
        after.erase("status");
      if (context.managed_fields_recorded) {
        auto& meta = object_at(after, "metadata");
        if (const auto* fields = wanted_meta.if_contains("managedFields"))
          meta["managedFields"] = *fields;
        else
          meta.erase("managedFields");
      }
    } else {
      after = convert_to(stored, std::move(wanted));
      // The main resource cannot change status when a status subresource exists.
      if (type.has_status()) {
        if (const auto* status = before.if_contains("status"))
          after["status"] = *status;
        else
          after.erase("status");
      }
      auto& meta = object_at(after, "metadata");
      const auto& old_meta = before.at("metadata").as_object();
      for (auto field : {"generation", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
        if (const auto* value = old_meta.if_contains(field))
          meta[field] = *value;
        else
          meta.erase(field);
      }
      apply::apply_defaults(stored, after);
    }
    // A status write never moves it (the status strategies keep all but status).
    if (subresource != "status" && generation_changed(stored, before, after)) {
      auto& meta = object_at(after, "metadata");
      const auto* generation = before.at("metadata").as_object().if_contains("generation");
      std::int64_t next =
          generation != nullptr && generation->is_int64() ? generation->get_int64() + 1 : 1;
      meta["generation"] = next;
    }
    apply::validate(stored, after);
    if (apply::is_definition(type) && subresource.empty()) {
      apply::default_definition(after);
      apply::validate_definition_update(before, after);
      after["status"] = apply::written_definition_status(after, find_object(before, "status"));
    }
    if (!context.managed_fields_recorded)
      record_write(type, subresource, before, after, context.field_manager);
    if (subresource != "scale") {
      auto release = [&](const ResourceType& other) {
        if (&other != &type && &other.stored() == &stored)
          release_changed_fields(other, subresource, before, after);
      };
      if (type.custom)
        for (const auto* other : custom_.types()) release(*other);
      else
        for (const auto& other : table_.types()) release(other);
    }
    return after;
  };
  std::optional<json::object> written;
  auto updated = store_.rewrite(stored, namespace_, name, mutation, context.dry_run,
                                scale != nullptr ? &written : nullptr);
  if (scale != nullptr) *scale = scale_of(type, *written);
  if (apply::is_definition(type) && subresource.empty() && !context.dry_run)
    settle_definition(updated->name);
  // A write that removed a deleted object's last finalizer deleted it: the garbage collector
  // sees it go like any other deletion.
  if (!context.dry_run && !store_.get(stored, namespace_, name)) cascade(updated);
  return in_version(type, updated);
}

ApplyResult Registry::apply(const ResourceType& type, std::string_view namespace_,
                            std::string_view name, std::string_view subresource,
                            json::object configuration, const ApplyOptions& options) {
  if (options.field_manager.empty())
    throw errors::invalid(
        "meta.k8s.io", "PatchOptions", "",
        {{"FieldValueRequired", "fieldManager", "Required value: is required for apply patch"}});
  if (options.field_manager.size() > 128)
    throw errors::invalid("meta.k8s.io", "PatchOptions", "",
                          {{"FieldValueTooLong", "fieldManager",
                            fmt::format("Too long: may not be more than 128 bytes")}});
  if (subresource == "scale") configuration = scale_to_object(type, name, configuration);
  const std::string api_version = string_at(configuration, "apiVersion");
  const std::string kind = string_at(configuration, "kind");
  if (api_version.empty() || kind.empty())
    throw errors::bad_request(fmt::format(
        "invalid object type: {}, Kind={}: an apply configuration needs apiVersion and kind",
        api_version, kind));
  if (api_version != type.group_version() || kind != type.kind)
    throw errors::bad_request(
        fmt::format("the apply configuration is a {} {}, but the URL names {} {}", api_version,
                    kind, type.group_version(), type.kind));
  auto& metadata = object_at(configuration, "metadata");
  const std::string sent_name = string_at(metadata, "name");
  if (!sent_name.empty() && sent_name != name)
    throw errors::bad_request(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})", sent_name, name));
  metadata.erase("managedFields");
  const auto target = write_target(type, subresource, options.field_manager);
  const WriteContext context{options.field_manager, true, options.dry_run};
  if (!store_.get(type.stored(), namespace_, name)) {
    if (!subresource.empty()) throw errors::not_found(type, name);
    json::object stub_metadata{{"name", name}};
    if (type.namespaced) stub_metadata["namespace"] = namespace_;
    const json::object stub{
        {"apiVersion", api_version}, {"kind", kind}, {"metadata", std::move(stub_metadata)}};
    try {
      auto created = apply::server_side_apply(stub, configuration, target, options.force);
      return {create(type, namespace_, std::move(created), context), true};
    } catch (const ApiError& error) {
      if (error.status().reason != "AlreadyExists") throw;  // else created meanwhile: merge
    }
  }
  auto intent = [&](const json::object& current) {
    return apply::server_side_apply(current, configuration, target, options.force);
  };
  // A Scale was turned into the object's own fields above; the entry still says "scale".
  const std::string_view part = subresource == "scale" ? "" : subresource;
  return {update(type, namespace_, name, part, intent, context), false};
}

DeleteResult Registry::remove(const ResourceType& type, std::string_view namespace_,
                              std::string_view name, const DeleteOptions& options) {
  if (type.group.empty() && type.resource == "namespaces" &&
      (name == "default" || name == "kube-system" || name == "kube-public")) {
    client::Status status;
    status.status = "Failure";
    status.code = 403;
    status.reason = "Forbidden";
    status.message =
        fmt::format("namespaces \"{}\" is forbidden: this namespace may not be deleted", name);
    status.details = client::StatusDetails{std::string(name), "", "namespaces", "", {}, 0};
    throw ApiError(std::move(status));
  }
  auto check = [&](const StoredObject& current) {
    if (options.precondition_uid && *options.precondition_uid != current.uid)
      throw errors::conflict_message(
          type, name,
          fmt::format("Precondition failed: UID in precondition: {}, UID in object meta: {}",
                      *options.precondition_uid, current.uid));
    if (options.precondition_resource_version &&
        *options.precondition_resource_version != std::to_string(current.resource_version))
      throw errors::conflict_message(
          type, name,
          fmt::format("Precondition failed: ResourceVersion in precondition: {}, ResourceVersion "
                      "in object meta: {}",
                      *options.precondition_resource_version, current.resource_version));
  };
  const ResourceType& stored = type.stored();
  auto current = store_.get(stored, namespace_, name);
  if (!current) throw errors::not_found(type, name);
  check(*current);
  if (type.group.empty() && type.resource == "namespaces" && !options.dry_run)
    return delete_namespace(name, check);
  const json::object existing = current->parse();
  const auto* finalizers = existing.at("metadata").as_object().if_contains("finalizers");
  const bool has_finalizers =
      finalizers != nullptr && finalizers->is_array() && !finalizers->get_array().empty();
  const std::int64_t grace = type.group.empty() && type.resource == "pods"
                                 ? apply::pod_grace_period(existing, options.grace_period_seconds)
                                 : 0;
  if (has_finalizers || grace > 0) {
    // Graceful: mark it. Whoever owns the finalizers removes them, a pod's kubelet deletes it
    // once its containers stopped; the store deletes it then. A shorter grace period than the
    // one running moves the deadline closer (0 with no finalizers deletes now).
    auto marked = store_.update(
        stored, namespace_, name,
        [&](const StoredObject& now, json::object object) {
          check(now);
          auto& metadata = object_at(object, "metadata");
          const auto* running = metadata.if_contains("deletionGracePeriodSeconds");
          const bool shorter =
              running != nullptr && running->is_int64() && grace < running->get_int64();
          if (!metadata.contains("deletionTimestamp") || shorter) {
            metadata["deletionTimestamp"] =
                client::format_time(std::chrono::system_clock::now() + std::chrono::seconds(grace));
            metadata["deletionGracePeriodSeconds"] = grace;
          }
          return object;
        },
        options.dry_run);
    const bool deleted = !options.dry_run && !store_.get(stored, namespace_, name);
    return {in_version(type, marked), deleted};
  }
  if (options.dry_run) return {in_version(type, current), true};  // would be deleted now
  auto deleted = store_.remove(stored, namespace_, name, check);
  if (apply::is_definition(type)) sync_definition(*deleted, true);
  if (options.propagation_policy == "Orphan")
    orphan(deleted);
  else
    cascade(deleted);
  if (type.group.empty() && type.resource == "serviceaccounts" && name == kDefaultServiceAccount)
    ensure_default_service_account(*this, namespace_);
  return {in_version(type, deleted), true};
}

void Registry::for_each_dependent(
    const ObjectPtr& owner,
    const std::function<void(const ResourceType&, const ObjectPtr&)>& visit) {
  // The garbage collector follows every kind (GetDeletableResources: whatever can be listed,
  // watched and deleted, custom resources included). It looks an owner up in its dependent's
  // namespace, so a namespaced owner's dependents are in its namespace; a cluster-scoped
  // owner's may be anywhere.
  for (const auto& item : store_.dependents(owner->uid)) {
    if (!owner->namespace_.empty() && item->namespace_ != owner->namespace_) continue;
    visit(*item->type, item);
  }
}

bool Registry::has_other_owner(const json::object& dependent, std::string_view namespace_,
                               std::string_view gone_uid) const {
  // attemptToDeleteItem: an owner is solid when the object its reference names (by apiVersion,
  // kind and name, in the dependent's namespace unless cluster-scoped) exists with its uid.
  const auto* refs = dependent.at("metadata").as_object().if_contains("ownerReferences");
  if (refs == nullptr || !refs->is_array()) return false;
  for (const auto& value : refs->get_array()) {
    if (!value.is_object()) continue;
    const auto& ref = value.get_object();
    const std::string uid = string_at(ref, "uid");
    if (uid.empty() || uid == gone_uid) continue;
    const std::string api_version = string_at(ref, "apiVersion");
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const auto* type = table_.find_kind(group, string_at(ref, "kind"));
    if (type == nullptr) continue;
    auto found = store_.get(*type, type->namespaced ? namespace_ : "", string_at(ref, "name"));
    if (found && found->uid == uid) return true;
  }
  return false;
}

DeleteResult Registry::delete_namespace(std::string_view name,
                                        const std::function<void(const StoredObject&)>& check) {
  // As the API server and the namespace controller do it, in the order a watch sees: the
  // namespace goes Terminating (its spec.finalizers keep it), its content is deleted, the
  // controller records that in its conditions and removes the "kubernetes" finalizer (the
  // finalize subresource), and the namespace is gone unless metadata.finalizers still hold it.
  const auto& namespaces = *table_.find("", "v1", "namespaces");
  const std::string now = client::format_time(std::chrono::system_clock::now());
  auto terminating =
      store_.update(namespaces, "", name, [&](const StoredObject& current, json::object object) {
        check(current);
        auto& metadata = object_at(object, "metadata");
        if (!metadata.contains("deletionTimestamp")) {
          metadata["deletionTimestamp"] = now;
          metadata["deletionGracePeriodSeconds"] = 0;
        }
        object_at(object, "status")["phase"] = "Terminating";
        return object;
      });
  for (const auto* other : served_types()) {
    if (!other->namespaced || other->storage != nullptr) continue;  // each store once
    const auto contents = store_.list(*other, name);
    for (const auto& item : contents->items) {
      try {
        store_.remove(*other, item->namespace_, item->name);
      } catch (const ApiError&) {
        // Already gone: a cascade got there first.
      }
    }
  }
  // pkg/controller/namespace/deletion (namespaced_resources_deleter.go): the five deletion
  // conditions, False when all went well (what `kubectl describe namespace` shows).
  struct DeletionCondition {
    std::string_view type, reason, message;
  };
  static constexpr std::array<DeletionCondition, 5> kConditions = {{
      {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
       "All resources successfully discovered"},
      {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
       "All legacy kube types successfully parsed"},
      {"NamespaceDeletionContentFailure", "ContentDeleted",
       "All content successfully deleted, may be waiting on finalization"},
      {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
      {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
       "All content-preserving finalizers finished"},
  }};
  std::optional<ObjectPtr> finalized;
  try {
    finalized = store_.update(namespaces, "", name, [&](const StoredObject&, json::object object) {
      json::array conditions;
      for (const auto& c : kConditions)
        conditions.push_back(json::object{{"type", c.type},
                                          {"status", "False"},
                                          {"lastTransitionTime", now},
                                          {"reason", c.reason},
                                          {"message", c.message}});
      object_at(object, "status")["conditions"] = std::move(conditions);
      auto& finalizers = array_at(object_at(object, "spec"), "finalizers");
      finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), json::value("kubernetes")),
                       finalizers.end());
      return object;
    });
  } catch (const ApiError&) {
    // Gone meanwhile.
  }
  const bool gone = !store_.get(namespaces, "", name);
  return {in_version(namespaces, gone || !finalized ? terminating : *finalized), gone};
}

void read_delete_options(const json::object& body, DeleteOptions& options,
                         std::optional<bool>& orphan) {
  if (const auto* modes = body.if_contains("dryRun"); modes != nullptr && modes->is_array()) {
    std::vector<std::string_view> values;
    for (const auto& mode : modes->get_array())
      values.emplace_back(mode.is_string() ? std::string_view(mode.get_string()) : "");
    options.dry_run = options.dry_run || dry_run_values(values, "DeleteOptions");
  }
  if (const auto* grace = body.if_contains("gracePeriodSeconds");
      grace != nullptr && grace->is_int64())
    options.grace_period_seconds = grace->get_int64();
  if (const auto* p = body.if_contains("propagationPolicy"); p != nullptr && p->is_string())
    options.propagation_policy = std::string(p->get_string());
  if (const auto* o = body.if_contains("orphanDependents"); o != nullptr && o->is_bool())
    orphan = o->get_bool();
  if (const auto* pre = body.if_contains("preconditions"); pre != nullptr && pre->is_object()) {
    if (const auto* uid = pre->get_object().if_contains("uid"); uid != nullptr && uid->is_string())
      options.precondition_uid = std::string(uid->get_string());
    if (const auto* rv = pre->get_object().if_contains("resourceVersion");
        rv != nullptr && rv->is_string())
      options.precondition_resource_version = std::string(rv->get_string());
  }
}

void Registry::cascade(const ObjectPtr& owner) {
  // Background/Foreground propagation: the garbage collector deletes what the owner owned,
  // unless a dependent has another owner that still exists; then it only drops the reference
  // to the one that went (attemptToDeleteItem's "solid" owners).
  for_each_dependent(owner, [&](const ResourceType& type, const ObjectPtr& item) {
    try {
      if (has_other_owner(item->parse(), item->namespace_, owner->uid)) {
        drop_owner_reference(type, item, owner->uid);
        return;
      }
      auto gone = store_.remove(type, item->namespace_, item->name);
      cascade(gone);
    } catch (const ApiError&) {
      // Deleted concurrently.
    }
  });
}

void Registry::drop_owner_reference(const ResourceType& type, const ObjectPtr& item,
                                    std::string_view owner_uid) {
  store_.update(type, item->namespace_, item->name, [&](const StoredObject&, json::object object) {
    auto& metadata = object_at(object, "metadata");
    auto* refs = metadata.if_contains("ownerReferences");
    if (refs == nullptr || !refs->is_array()) return object;
    auto& list = refs->get_array();
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const json::value& ref) {
                                return ref.is_object() &&
                                       string_at(ref.get_object(), "uid") == owner_uid;
                              }),
               list.end());
    if (list.empty()) metadata.erase("ownerReferences");
    return object;
  });
}

void Registry::orphan(const ObjectPtr& owner) {
  // Orphan propagation: the garbage collector's orphan finalizer removes the owner's
  // ownerReference from every dependent (pkg/controller/garbagecollector
  // orphanDependents), which then stays.
  for_each_dependent(owner, [&](const ResourceType& type, const ObjectPtr& item) {
    try {
      drop_owner_reference(type, item, owner->uid);
    } catch (const ApiError&) {
      // Deleted concurrently.
    }
  });
}

void Registry::bind(std::string_view namespace_, std::string_view pod,
                    const json::object& binding) {
  const auto* pods = table_.find("", "v1", "pods");
  std::string node;
  if (const auto* target = find_object(binding, "target")) node = string_at(*target, "name");
  if (node.empty())
    throw errors::invalid("", "Binding", pod,
                          {{"FieldValueRequired", "target.name", "Required value"}});
  store_.update(*pods, namespace_, pod, [&](const StoredObject&, json::object object) {
    auto& spec = object_at(object, "spec");
    if (!string_at(spec, "nodeName").empty())
      throw errors::conflict_message(*pods, pod,
                                     fmt::format("pod {} is already assigned to node \"{}\"", pod,
                                                 string_at(spec, "nodeName")));
    spec["nodeName"] = node;
    return object;
  });
}

}  // namespace rg::sim
