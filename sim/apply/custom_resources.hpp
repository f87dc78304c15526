// CustomResources: the kinds CustomResourceDefinitions (apiextensions.k8s.io/v1) add to the
// API. Each served version of a CRD becomes a ResourceType that routing, discovery, OpenAPI and
// the store use like a built-in one (stored generically). Types live as long as the registry:
// a removed definition's types are retired, not freed, so pointers held elsewhere stay valid.
// Thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sim/resource_table.hpp"

namespace rg::sim::apply {

/// The resource types a CRD defines (one per served version). Throws ApiError 422 naming the
/// missing or invalid field (spec.group, spec.names.plural/kind, spec.scope, spec.versions).
std::vector<ResourceType> types_of_definition(const boost::json::object& crd);

/// The status the API server's CRD controllers give an accepted definition: NamesAccepted and
/// Established conditions, acceptedNames, storedVersions. `previous` (may be null) keeps the
/// conditions' transition times.
boost::json::object definition_status(const boost::json::object& crd,
                                      const boost::json::object* previous);

class CustomResources {
 public:
  /// Serves the types of definition `name` (a CRD's metadata.name). Types already served under
  /// the same group, version and resource are kept as they are (their stored objects stay);
  /// versions no longer served are retired and returned, so the caller can delete their objects.
  std::vector<const ResourceType*> define(const std::string& name, std::vector<ResourceType> types);
  /// Stops serving every type of definition `name`; returns them (retired).
  std::vector<const ResourceType*> undefine(const std::string& name);

  const ResourceType* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  /// The served custom types, in definition order.
  std::vector<const ResourceType*> types() const;
  /// Changes whenever the set of served types changes (discovery rebuilds on it).
  std::uint64_t generation() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<ResourceType>>> served_;  // by CRD name
  std::vector<std::unique_ptr<ResourceType>> retired_;
  std::uint64_t generation_ = 0;
};

}  // namespace rg::sim::apply
