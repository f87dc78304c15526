// Discovery and OpenAPI documents: /version, legacy discovery (/api, /apis, /apis/<g>,
// /api/v1, /apis/<g>/<v>), aggregated discovery v2 (by Accept), and the /openapi/v3 index with
// per-group-version documents, and /openapi/v2 (JSON or protobuf, by Accept) -- all built once
// from the ResourceTable, with ETags and hashes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "sim/http_types.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

struct VersionInfo {
  std::string major = "1";
  std::string minor = "35";
  std::string git_version = "v1.35.0-kube-sim";
};

class Discovery {
 public:
  /// `server_address` is host:port as clients reach the server (for /api's CIDR list).
  Discovery(const ResourceTable& table, VersionInfo version, std::string server_address);

  /// The response for a discovery, /version or /openapi path, or nullopt when `request` is not
  /// one of those paths.
  std::optional<HttpResponse> serve(const HttpRequest& request) const;

 private:
  struct Document {
    std::string body;
    std::string etag;  ///< quoted
  };
  HttpResponse respond(const HttpRequest& request, const Document& document,
                       std::string content_type) const;
  std::optional<HttpResponse> serve_openapi(const HttpRequest& request) const;

  Document version_;
  Document api_versions_;
  Document group_list_;
  Document aggregated_core_;
  Document aggregated_groups_;
  std::map<std::string, Document, std::less<>> groups_;          // "apps" → APIGroup
  std::map<std::string, Document, std::less<>> resource_lists_;  // "apps/v1" → APIResourceList
  Document openapi_index_;
  std::map<std::string, Document, std::less<>> openapi_docs_;  // "apis/apps/v1" → document
  Document openapi_v2_json_;
  Document openapi_v2_protobuf_;
};

/// SHA-512 of `data` as 128 upper-case hex digits (the API server's ETag and OpenAPI hash).
std::string sha512_hex(std::string_view data);

}  // namespace rg::sim
