// SubjectAccessReview (kubernetes pkg/registry/authorization/subjectaccessreview/rest.go and
// pkg/apis/authorization/validation/validation.go, v1.35).
#include "sim/auth/subject_access_reviews.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/json_fields.hpp"
#include "sim/responses.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

std::vector<std::string> strings_at(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* value = object.if_contains(key); value != nullptr && value->is_array())
    for (const auto& item : value->get_array())
      if (item.is_string()) out.emplace_back(item.get_string());
  return out;
}

/// Whether metadata is ObjectMeta's zero value (managedFields aside; Go clients send
/// `"creationTimestamp": null`).
bool empty_metadata(const json::object& body) {
  const auto* metadata = find_object(body, "metadata");
  if (metadata == nullptr) return true;
  for (const auto& [key, value] : *metadata) {
    if (key == "managedFields" || value.is_null()) continue;
    if ((value.is_string() && value.get_string().empty()) ||
        (value.is_object() && value.get_object().empty()) ||
        (value.is_array() && value.get_array().empty()))
      continue;
    return false;
  }
  return true;
}

/// The user the review asks about: spec.user, uid, groups and extra.
UserInfo reviewed_user(const json::object& spec) {
  UserInfo user;
  user.name = string_at(spec, "user");
  user.uid = string_at(spec, "uid");
  user.groups = strings_at(spec, "groups");
  if (const auto* extra = find_object(spec, "extra"))
    for (const auto& [key, values] : *extra)
      if (values.is_array()) user.extra[std::string(key)] = strings_at(*extra, key);
  return user;
}

}  // namespace

HttpResponse serve_subject_access_review(const HttpRequest& request,
                                         const RbacAuthorizer& authorizer, bool rbac) {
  json::object body = parse_object_body(request, "SubjectAccessReview", "authorization.k8s.io/v1");
  json::object spec;
  if (const auto* value = find_object(body, "spec")) spec = *value;
  Attributes attributes = review_attributes(spec, "SubjectAccessReview", reviewed_user(spec));
  std::vector<FieldError> invalid;
  if (attributes.user.name.empty() && attributes.user.groups.empty())
    invalid.push_back({"FieldValueInvalid", "spec.user",
                       "Invalid value: \"\": at least one of user or group must be specified"});
  if (!empty_metadata(body))
    invalid.push_back({"FieldValueInvalid", "metadata", "Invalid value: {...}: must be empty"});
  if (!invalid.empty())
    throw errors::invalid("authorization.k8s.io", "SubjectAccessReview", "", invalid);
  const Decision decision = rbac ? authorizer.authorize(attributes) : Decision{true, ""};
  json::object status{{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  json::object response{{"kind", "SubjectAccessReview"},
                        {"apiVersion", "authorization.k8s.io/v1"},
                        {"metadata", json::object{{"creationTimestamp", nullptr}}},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  return object_response(201, std::move(response));
}

}  // namespace rg::sim::auth
