// CustomResources: the kinds CustomResourceDefinitions (apiextensions.k8s.io/v1) add to the API,
// and the rules the apiextensions-apiserver applies to the definitions themselves (defaults,
// validation, status). Each version of a CRD becomes a ResourceType that routing, discovery,
// OpenAPI and the store use like a built-in one; the versions share the storage version's
// objects and differ only in apiVersion (the `None` conversion strategy). Types live as long as
// the registry: a changed or removed definition's types are retired, not freed, so pointers held
// elsewhere stay valid. Thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sim/resource_table.hpp"

namespace rg::sim::apply {

/// The resource types of a definition: one per version in spec order, whether each is served,
/// and which one stores (`storage: true`).
struct DefinedVersions {
  std::vector<ResourceType> types;
  std::vector<bool> served;
  std::size_t storage = 0;
};

/// The definition's defaults (SetDefaults_CustomResourceDefinitionSpec): spec.names.singular
/// (the lower-case kind), spec.names.listKind (kind + "List"), spec.conversion.strategy None.
void default_definition(boost::json::object& crd);

/// The types a (defaulted) CRD defines. Throws ApiError 422 naming the field, as the
/// apiextensions validation does: spec.group, names, scope, versions (at least one, exactly one
/// storage version), metadata.name = plural.group, scale subresource paths.
DefinedVersions versions_of_definition(const boost::json::object& crd);

/// 422 when an update changes what may not change: spec.scope, spec.group, spec.names.plural.
void validate_definition_update(const boost::json::object& before,
                                const boost::json::object& after);

/// The status a write of the definition keeps (PrepareForCreate: empty; PrepareForUpdate: the
/// previous one), with the storage version appended to storedVersions when missing.
boost::json::object written_definition_status(const boost::json::object& crd,
                                              const boost::json::object* previous);

/// The naming controller's status: acceptedNames are the spec's names, NamesAccepted True, and
/// Established False (Installing) unless it is True already. Null when nothing changes.
std::optional<boost::json::object> names_accepted_status(const boost::json::object& crd);
/// The establishing controller's status: Established True. Null when it is already.
std::optional<boost::json::object> established_status(const boost::json::object& crd);

/// Where a definition's objects are stored before and after a change of the definition: both
/// null when nothing changed, `before` null for a new definition, `after` null for a removed one.
struct StorageChange {
  const ResourceType* before = nullptr;
  const ResourceType* after = nullptr;
};

class CustomResources {
 public:
  /// Serves the types of definition `name` (a CRD's metadata.name) with spec `spec`. A
  /// definition whose spec did not change keeps its types; a changed one gets new types (the
  /// API server rebuilds the storage of a CRD on every change of its spec).
  StorageChange define(const std::string& name, const boost::json::object& spec,
                       DefinedVersions versions);
  /// Stops serving every type of definition `name`.
  StorageChange undefine(const std::string& name);

  const ResourceType* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  /// The served custom types: by definition, each one's versions in discovery's order (GA
  /// before beta before alpha, newer first), the first its group's preferred version.
  std::vector<const ResourceType*> types() const;
  /// Changes whenever the set of served types changes (discovery rebuilds on it).
  std::uint64_t generation() const;

 private:
  struct Definition {
    boost::json::object spec;
    std::vector<std::unique_ptr<ResourceType>> versions;  // spec order
    std::vector<const ResourceType*> served;              // discovery order
    const ResourceType* storage = nullptr;
  };
  /// Retires the definition's types; returns its storage type.
  const ResourceType* retire(Definition& definition);

  mutable std::shared_mutex mutex_;
  std::map<std::string, Definition> definitions_;  // by CRD name
  std::vector<std::unique_ptr<ResourceType>> retired_;
  std::uint64_t generation_ = 0;
};

}  // namespace rg::sim::apply
