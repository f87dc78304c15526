// RequestInfo: what a request path and method mean to the API server (apiserver's
// RequestInfoFactory): resource or not, group, version, namespace, resource, name,
// subresource and verb.
#pragma once

#include <string>
#include <string_view>

#include "sim/http_types.hpp"

namespace rg::sim {

struct RequestInfo {
  bool is_resource_request = false;
  std::string group;
  std::string version;
  std::string namespace_;
  std::string resource;
  std::string name;
  std::string subresource;
  /// get, list, watch, create, update, patch, delete, deletecollection (resource requests);
  /// the lower-case method otherwise.
  std::string verb;
};

/// Parses `/api/v1/...` and `/apis/<group>/<version>/...` paths; anything else (discovery,
/// /version, /openapi) comes back with is_resource_request false.
RequestInfo parse_request_info(const HttpRequest& request);

}  // namespace rg::sim
