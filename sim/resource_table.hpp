// ResourceTable: every resource kube-sim serves (group, version, resource, kind, scope, short
// names, verbs, subresources, selectable fields) -- the one source for routing, discovery and
// OpenAPI.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rg::sim {
namespace wire {
struct Type;
}

/// A subresource such as deployments/scale; its kind may live in another group (autoscaling).
struct SubresourceType {
  std::string name;  ///< "status", "scale", "binding"
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;  ///< sorted
};

/// Where a custom resource's scale subresource reads and writes (its CRD's
/// subresources.scale): dotted JSON paths such as ".spec.replicas"; an empty selector path
/// means no selector.
struct ScalePaths {
  std::string spec_replicas;
  std::string status_replicas;
  std::string label_selector;
};

struct ResourceType {
  std::string group;     ///< "" for the core group
  std::string version;   ///< "v1"
  std::string resource;  ///< plural, "deployments"
  std::string singular;  ///< "deployment"
  std::string kind;      ///< "Deployment"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs;  ///< sorted
  std::vector<SubresourceType> subresources;
  /// Field selector keys beyond metadata.name and metadata.namespace ("spec.nodeName").
  std::vector<std::string> selectable_fields;
  /// Field labels of the versions stored as this one, in this one's names (the scheme's
  /// field label conversions): {"regarding.name", "involvedObject.name"} for Events.
  std::vector<std::pair<std::string, std::string>> field_label_aliases;
  /// `{"kind":"<Kind>","apiVersion":"<group/version>",` (filled by ResourceTable): prefix of a
  /// typed document built from a stored list item.
  std::string type_meta_prefix;
  /// The version this resource's objects are stored in when it is another served version of the
  /// same resource (autoscaling/v1 HorizontalPodAutoscalers are stored as v2, as the API
  /// server's storage version); empty: this version.
  std::string storage_version;
  /// The group of storage_version when it is another group's resource (events.k8s.io/v1
  /// Events are stored as core/v1 Events, as the API server keeps both under one etcd
  /// prefix); unset: this group.
  std::optional<std::string> storage_group;
  /// The type of storage_version in the same table (filled by ResourceTable); null when this
  /// type is its own storage.
  const ResourceType* storage = nullptr;
  /// The k8s.io/api Go type of `kind` (filled by ResourceTable; sim/wire_form.hpp): how its
  /// objects are written. Null for custom resources, which have no Go type.
  const wire::Type* wire = nullptr;
  /// A version of a CustomResourceDefinition: its versions share one storage and differ only in
  /// apiVersion (the `None` conversion strategy).
  bool custom = false;
  /// A custom resource's scale subresource fields; unset for built-in kinds (spec.replicas,
  /// status.replicas, the LabelSelector at spec.selector).
  std::optional<ScalePaths> scale_paths;

  /// The type the store keeps this resource's objects under: `storage`, else this one.
  const ResourceType& stored() const { return storage != nullptr ? *storage : *this; }

  std::string group_version() const;   ///< "v1" or "apps/v1"
  std::string group_resource() const;  ///< "pods" or "deployments.apps" (error messages)
  std::string group_kind() const;      ///< "Pod" or "Deployment.apps" (Invalid messages)
  std::string list_kind() const { return kind + "List"; }
  const SubresourceType* subresource(std::string_view name) const;
  bool has_status() const { return subresource("status") != nullptr; }
};

/// A served group/version with its resources, in the order discovery lists them.
struct GroupVersion {
  std::string group;
  std::string version;
  std::vector<const ResourceType*> resources;
  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
};

class ResourceTable {
 public:
  /// The built-in resources of a Kubernetes 1.35 API server that kube-sim covers.
  static const ResourceTable& builtin();
  /// A built-in resource that kube-sim's own code names; its absence is a bug (std::logic_error).
  static const ResourceType& builtin_type(std::string_view group, std::string_view version,
                                          std::string_view resource);

  explicit ResourceTable(std::vector<ResourceType> types);

  const ResourceType* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  const ResourceType* find_kind(std::string_view group, std::string_view kind) const;
  const std::vector<ResourceType>& types() const { return types_; }
  const std::vector<GroupVersion>& group_versions() const { return group_versions_; }

 private:
  std::vector<ResourceType> types_;
  std::vector<GroupVersion> group_versions_;
};

}  // namespace rg::sim
