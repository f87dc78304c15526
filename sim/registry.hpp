// Registry: what happens to an object on its way into the store -- validation of names and
// namespaces, defaults, status reset on create, generation bumps on spec changes, the status
// and scale subresources, optimistic concurrency, graceful deletion with finalizers, delete
// preconditions and cascading deletion of owned objects (the apiserver registry strategies,
// reduced to what kube-sim's resources need). Objects of a resource served in several versions
// are stored in its storage version and converted on the way in and out
// (sim/version_conversion.hpp).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/apply/custom_resources.hpp"
#include "sim/object_store.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

/// Who writes, as managedFields record it.
struct WriteContext {
  std::string field_manager;  ///< ?fieldManager=, else the User-Agent up to the first '/'
  /// Set by apply(): the intent already maintained metadata.managedFields.
  bool managed_fields_recorded = false;
  /// ?dryRun=All: validate and answer the result, store nothing.
  bool dry_run = false;
};

/// A server-side apply request (PATCH with application/apply-patch+yaml).
struct ApplyOptions {
  std::string field_manager;  ///< required
  bool force = false;         ///< take over fields other managers own instead of a 409
  bool dry_run = false;       ///< ?dryRun=All
};

struct ApplyResult {
  ObjectPtr object;
  bool created = false;  ///< 201 instead of 200
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::string propagation_policy;  ///< "", "Background", "Foreground", "Orphan"
  /// Pods: overrides spec.terminationGracePeriodSeconds; 0 deletes at once.
  std::optional<std::int64_t> grace_period_seconds;
  bool dry_run = false;  ///< ?dryRun=All or DeleteOptions.dryRun: check, answer, keep it
};

/// Reads a metav1.DeleteOptions object (dryRun, gracePeriodSeconds, propagationPolicy,
/// preconditions) into `options`; the deprecated orphanDependents into `orphan`.
void read_delete_options(const boost::json::object& body, DeleteOptions& options,
                         std::optional<bool>& orphan);

/// The outcome of a DELETE: the last state, and whether it is gone (false: it has finalizers
/// and now carries a deletionTimestamp).
struct DeleteResult {
  ObjectPtr object;
  bool deleted = true;
};

class Registry {
 public:
  Registry(Store& store, const ResourceTable& table);

  Store& store() { return store_; }
  /// The built-in resources.
  const ResourceTable& table() const { return table_; }

  /// A served resource: built-in, or defined by a CustomResourceDefinition; null when neither.
  const ResourceType* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  /// Every served resource type, the built-in ones first.
  std::vector<const ResourceType*> served_types() const;
  /// Changes whenever CustomResourceDefinitions add or remove served types.
  std::uint64_t served_generation() const { return custom_.generation(); }

  /// Creates the namespaces every cluster has (default, kube-system, kube-public,
  /// kube-node-lease).
  void bootstrap();

  /// The object or its subresource view ("" / "status" → the object, "scale" → a Scale).
  /// Throws NotFound.
  boost::json::object get(const ResourceType& type, std::string_view namespace_,
                          std::string_view name, std::string_view subresource) const;

  /// The object as `type`'s version names it (converted from the storage version). Throws
  /// NotFound.
  ObjectPtr read(const ResourceType& type, std::string_view namespace_,
                 std::string_view name) const;

  /// Writes take and return objects in `type`'s version; the store keeps the storage version.
  ObjectPtr create(const ResourceType& type, std::string_view namespace_,
                   boost::json::object object, const WriteContext& context);

  /// Read-modify-write of the object or a subresource view: `intent` maps the current view
  /// to the wanted one. A resourceVersion in the wanted view must match (409 Conflict).
  /// Returns the object in `type`'s version. `scale`, when given, receives the result's Scale
  /// (what view_of(result, "scale") would answer, without parsing the result again).
  using Intent = std::function<boost::json::object(boost::json::object current_view)>;
  ObjectPtr update(const ResourceType& type, std::string_view namespace_, std::string_view name,
                   std::string_view subresource, const Intent& intent, const WriteContext& context,
                   boost::json::object* scale = nullptr);

  /// Server-side apply: creates the object from `configuration` when absent, else merges it
  /// in; managedFields get the manager's Apply entry. Throws 409 Conflict listing the fields
  /// other managers own that the apply would change (unless options.force), 422 without a
  /// field manager, 400 for a configuration without apiVersion/kind or of another object.
  ApplyResult apply(const ResourceType& type, std::string_view namespace_, std::string_view name,
                    std::string_view subresource, boost::json::object configuration,
                    const ApplyOptions& options);

  /// Deletes, or starts a graceful deletion: objects with finalizers get a deletionTimestamp
  /// and stay until the finalizers are gone; a scheduled, unfinished pod gets deletionTimestamp
  /// (now + grace period) and deletionGracePeriodSeconds and stays Terminating until its
  /// kubelet removes it (gracePeriodSeconds=0 deletes at once).
  DeleteResult remove(const ResourceType& type, std::string_view namespace_, std::string_view name,
                      const DeleteOptions& options);

  /// pods/<name>/binding: sets spec.nodeName once.
  void bind(std::string_view namespace_, std::string_view pod, const boost::json::object& binding);

  /// The subresource view of a stored object.
  boost::json::object view_of(const StoredObject& object, std::string_view subresource) const;

 private:
  /// Name, namespace, defaults, status reset and validation of a new object.
  void prepare_create(const ResourceType& type, std::string_view namespace_,
                      boost::json::object& object);
  /// Calls `visit` with every object whose ownerReferences name `owner`.
  void for_each_dependent(const ObjectPtr& owner,
                          const std::function<void(const ResourceType&, const ObjectPtr&)>& visit);
  void cascade(const ObjectPtr& owner);
  void orphan(const ObjectPtr& owner);
  /// Whether `dependent` (parsed) names an owner other than `gone_uid` that still exists.
  bool has_other_owner(const boost::json::object& dependent, std::string_view namespace_,
                       std::string_view gone_uid) const;
  /// Removes the ownerReference to `owner_uid` from `item` (the whole list when it was the last).
  void drop_owner_reference(const ResourceType& type, const ObjectPtr& item,
                            std::string_view owner_uid);
  /// DELETE of a namespace: Terminating, content deleted, finalized, gone.
  DeleteResult delete_namespace(std::string_view name,
                                const std::function<void(const StoredObject&)>& check);
  /// After a CustomResourceDefinition was written or deleted: serve its types (its objects
  /// move to a changed definition's new storage type), or delete its objects.
  void sync_definition(const StoredObject& definition, bool deleted);
  /// After a CustomResourceDefinition was created or updated: its status as the naming and
  /// establishing controllers write it, and its types served.
  void settle_definition(std::string_view name);
  void remove_all(const ResourceType& type);
  Store& store_;
  const ResourceTable& table_;
  apply::CustomResources custom_;
};

/// The default field manager for a User-Agent: the part before the first '/'.
std::string manager_from_user_agent(std::string_view user_agent);

}  // namespace rg::sim
