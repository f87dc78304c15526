// SelfSubjectAccessReview and SelfSubjectReview (kubernetes pkg/registry/authorization/
// selfsubjectaccessreview/rest.go and pkg/registry/authentication/selfsubjectreview/rest.go).
#include "sim/auth/access_reviews.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/auth/request_body.hpp"
#include "sim/responses.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

std::string string_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

const json::object* object_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_object() ? &value->get_object() : nullptr;
}

}  // namespace

HttpResponse serve_self_subject_access_review(const HttpRequest& request, const UserInfo& user,
                                              const RbacAuthorizer& authorizer) {
  json::object body =
      decode_request_body(request, "SelfSubjectAccessReview", "authorization.k8s.io/v1");
  json::object spec;
  if (const auto* value = object_at(body, "spec")) spec = *value;
  const auto* resource = object_at(spec, "resourceAttributes");
  const auto* non_resource = object_at(spec, "nonResourceAttributes");
  if ((resource == nullptr) == (non_resource == nullptr))
    throw errors::invalid(
        "authorization.k8s.io", "SelfSubjectAccessReview", "",
        {{"FieldValueInvalid", "spec.resourceAttributes",
          std::string("Invalid value: ") + (resource == nullptr ? "\"null\"" : "\"{...}\"") +
              ": exactly one of nonResourceAttributes or resourceAttributes must be specified"}});
  Attributes attributes;
  attributes.user = user;
  if (resource != nullptr) {
    attributes.resource_request = true;
    attributes.namespace_ = string_at(*resource, "namespace");
    attributes.verb = string_at(*resource, "verb");
    attributes.group = string_at(*resource, "group");
    attributes.version = string_at(*resource, "version");
    attributes.resource = string_at(*resource, "resource");
    attributes.subresource = string_at(*resource, "subresource");
    attributes.name = string_at(*resource, "name");
  } else {
    attributes.verb = string_at(*non_resource, "verb");
    attributes.path = string_at(*non_resource, "path");
  }
  const Decision decision = authorizer.authorize(attributes);
  json::object status{{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  json::object metadata;
  metadata["creationTimestamp"] = nullptr;
  json::object response{{"kind", "SelfSubjectAccessReview"},
                        {"apiVersion", "authorization.k8s.io/v1"},
                        {"metadata", std::move(metadata)},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  return json_response(201, json::serialize(response));
}

HttpResponse serve_self_subject_review(const HttpRequest& request, const UserInfo& user) {
  decode_request_body(request, "SelfSubjectReview", "authentication.k8s.io/v1");
  json::array groups;
  for (const auto& group : user.groups) groups.emplace_back(group);
  json::object info{{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  info["groups"] = std::move(groups);
  json::object metadata;
  metadata["creationTimestamp"] = nullptr;
  json::object response{{"kind", "SelfSubjectReview"},
                        {"apiVersion", "authentication.k8s.io/v1"},
                        {"metadata", std::move(metadata)},
                        {"status", json::object{{"userInfo", std::move(info)}}}};
  return json_response(201, json::serialize(response));
}

}  // namespace rg::sim::auth
