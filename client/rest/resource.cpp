// Paths for resources.
#include "client/rest/resource.hpp"

#include <stdexcept>

#include "client/rest/query.hpp"

namespace rg::client {

ResourceRef ResourceRef::in(std::string_view ns) const {
  ResourceRef copy = *this;
  copy.namespace_ = std::string(ns);
  return copy;
}

ResourceRef ResourceRef::sub(std::string_view name) const {
  ResourceRef copy = *this;
  copy.subresource = std::string(name);
  return copy;
}

std::string ResourceRef::group_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceRef::group_resource() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string ResourceRef::path(std::string_view name) const {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("resource " + group_resource() + " (" + group_version() +
                                "): " + what);
  };
  if (version.empty() || resource.empty()) fail("version and resource are required");
  if (!namespaced && !namespace_.empty()) {
    fail("is cluster-scoped but namespace \"" + namespace_ + "\" was given");
  }
  if (!subresource.empty() && name.empty())
    fail("subresource \"" + subresource + "\" needs a name");
  for (const auto segment : {std::string_view(namespace_), name}) {
    if (segment == "." || segment == ".." || segment.find('/') != std::string_view::npos) {
      fail("\"" + std::string(segment) + "\" is not a valid name");
    }
  }
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (!namespace_.empty()) path += "/namespaces/" + url_encode(namespace_);
  path += "/" + resource;
  if (!name.empty()) path += "/" + url_encode(name);
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

namespace resources {
ResourceRef pods() { return {"", "v1", "pods", true, {}, {}}; }
ResourceRef nodes() { return {"", "v1", "nodes", false, {}, {}}; }
ResourceRef namespaces() { return {"", "v1", "namespaces", false, {}, {}}; }
ResourceRef events() { return {"", "v1", "events", true, {}, {}}; }
ResourceRef config_maps() { return {"", "v1", "configmaps", true, {}, {}}; }
ResourceRef deployments() { return {"apps", "v1", "deployments", true, {}, {}}; }
ResourceRef replica_sets() { return {"apps", "v1", "replicasets", true, {}, {}}; }
ResourceRef leases() { return {"coordination.k8s.io", "v1", "leases", true, {}, {}}; }
}  // namespace resources

}  // namespace rg::client
