// Status/JSON responses, Accept negotiation and chunk gathering.
#include "sim/responses.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"
#include "sim/wire_form.hpp"

namespace rg::sim {
namespace {

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

HttpResponse status_response(const client::Status& status) {
  HttpResponse response;
  response.status = status.code != 0 ? status.code : 500;
  response.headers = {{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}};
  if (status.details && status.details->retry_after_seconds > 0)
    response.headers.emplace_back("Retry-After",
                                  std::to_string(status.details->retry_after_seconds));
  response.body = boost::json::serialize(client::to_json(status));
  return response;
}

HttpResponse json_response(int code, std::string body) {
  HttpResponse response;
  response.status = code;
  response.headers = {{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}};
  response.body = std::move(body);
  return response;
}

HttpResponse object_response(int code, boost::json::object object) {
  const auto api_version = string_at(object, "apiVersion");
  const auto slash = api_version.find('/');
  const auto* type = wire_type(slash == std::string::npos ? "" : api_version.substr(0, slash),
                               api_version.substr(slash == std::string::npos ? 0 : slash + 1),
                               string_at(object, "kind"));
  if (type != nullptr) to_wire_form(*type, object);
  return json_response(code, boost::json::serialize(object));
}

Negotiation negotiate(const HttpRequest& request) {
  Negotiation negotiation;
  std::string_view accept = request.header("accept");
  if (contains(accept, "as=Table")) {
    negotiation.table = true;
    if (!contains(accept, "v=v1;") && !contains(accept, "v=v1,") && !accept.ends_with("v=v1") &&
        contains(accept, "v=v1beta1"))
      negotiation.table_api_version = "meta.k8s.io/v1beta1";
  }
  if (auto include = request.param("includeObject"))
    negotiation.include_object = std::string(*include);
  if (!negotiation.table && !accept.empty() && !contains(accept, "application/json") &&
      !contains(accept, "*/*") && !contains(accept, "application/*"))
    throw errors::not_acceptable("application/json, application/yaml");
  return negotiation;
}

void require_json_or_yaml_body(const HttpRequest& request) {
  std::string_view type = request.header("content-type");
  type = type.substr(0, type.find(';'));
  if (type.empty() || type == "application/json" || type == "application/yaml" || type == "*/*")
    return;
  throw errors::unsupported_media_type("application/json, application/yaml");
}

std::string ChunkBuilder::joined() const {
  std::string out;
  out.reserve(size_);
  for (auto part : parts_) out.append(part);
  return out;
}

void ChunkBuilder::clear() {
  parts_.clear();
  owned_.clear();
  pinned_.clear();
  size_ = 0;
}

}  // namespace rg::sim
