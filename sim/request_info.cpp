// Resource path parsing, following apiserver's pkg/endpoints/request/requestinfo.go.
#include "sim/request_info.hpp"

#include <cctype>
#include <vector>

#include "sim/query_params.hpp"

namespace rg::sim {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    auto slash = path.find('/');
    auto part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

}  // namespace

RequestInfo parse_request_info(const HttpRequest& request) {
  RequestInfo info;
  info.verb = request.method;
  for (auto& c : info.verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto parts = split_path(request.path);
  std::size_t at = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    at = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    at = 3;
  } else {
    return info;
  }
  if (at == parts.size()) return info;  // discovery of a group version
  bool legacy_watch = false;
  if (parts[at] == "watch") {  // deprecated /api/v1/watch/... paths
    legacy_watch = true;
    ++at;
  }
  std::vector<std::string_view> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  if (rest.empty()) return info;
  info.is_resource_request = true;
  if (rest[0] == "namespaces" && rest.size() > 1) {
    info.namespace_ = rest[1];
    // namespaces/<name>/status and /finalize are subresources of the namespace itself.
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
      rest.erase(rest.begin(), rest.begin() + 2);
  }
  info.resource = rest[0];
  if (rest.size() > 1) info.name = rest[1];
  if (rest.size() > 2) info.subresource = rest[2];
  if (rest.size() > 3) info.is_resource_request = false;  // no such path

  const std::string& method = request.method;
  if (method == "GET" || method == "HEAD") {
    if (legacy_watch || codec_bool(request, "watch"))
      info.verb = "watch";
    else
      info.verb = info.name.empty() ? "list" : "get";
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  }
  return info;
}

}  // namespace rg::sim
