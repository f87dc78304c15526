// Registry: what happens to an object on its way into the store -- validation of names and
// namespaces, defaults, status reset on create, generation bumps on spec changes, the status
// and scale subresources, optimistic concurrency, graceful deletion with finalizers, delete
// preconditions and cascading deletion of owned objects (the apiserver registry strategies,
// reduced to what kube-sim's resources need).
#pragma once

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/object_store.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

/// Who writes, as managedFields record it.
struct WriteContext {
  std::string field_manager;  ///< ?fieldManager=, else the User-Agent up to the first '/'
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::string propagation_policy;  ///< "", "Background", "Foreground", "Orphan"
};

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
  const ResourceTable& table() const { return table_; }

  /// Creates the namespaces every cluster has (default, kube-system, kube-public,
  /// kube-node-lease).
  void bootstrap();

  /// The object or its subresource view ("" / "status" → the object, "scale" → a Scale).
  /// Throws NotFound.
  boost::json::object get(const ResourceType& type, std::string_view namespace_,
                          std::string_view name, std::string_view subresource) const;

  ObjectPtr create(const ResourceType& type, std::string_view namespace_,
                   boost::json::object object, const WriteContext& context);

  /// Read-modify-write of the object or a subresource view: `intent` maps the current view
  /// to the wanted one. A resourceVersion in the wanted view must match (409 Conflict).
  /// Returns the stored object; the caller renders the view with view_of().
  using Intent = std::function<boost::json::object(boost::json::object current_view)>;
  ObjectPtr update(const ResourceType& type, std::string_view namespace_, std::string_view name,
                   std::string_view subresource, const Intent& intent, const WriteContext& context);

  DeleteResult remove(const ResourceType& type, std::string_view namespace_, std::string_view name,
                      const DeleteOptions& options);

  /// pods/<name>/binding: sets spec.nodeName once.
  void bind(std::string_view namespace_, std::string_view pod, const boost::json::object& binding);

  /// The subresource view of a stored object.
  boost::json::object view_of(const StoredObject& object, std::string_view subresource) const;

 private:
  void cascade(const ObjectPtr& owner);
  Store& store_;
  const ResourceTable& table_;
};

/// The default field manager for a User-Agent: the part before the first '/'.
std::string manager_from_user_agent(std::string_view user_agent);

}  // namespace rg::sim
