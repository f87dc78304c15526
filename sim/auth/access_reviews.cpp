// SelfSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview (kubernetes
// pkg/registry/authorization/selfsubject{access,rules}review/rest.go,
// pkg/registry/authentication/selfsubjectreview/rest.go; rules as rbac's RulesFor lists them).
#include "sim/auth/access_reviews.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/json_fields.hpp"
#include "sim/responses.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

/// Copies the non-empty string lists `keys` of `rule` (a ResourceRule or NonResourceRule).
json::object rule_info(const json::object& rule, std::initializer_list<std::string_view> keys) {
  json::object info;
  for (auto key : keys) {
    const auto* value = rule.if_contains(key);
    if (value != nullptr && value->is_array() && (!value->get_array().empty() || key == "verbs"))
      info[key] = *value;
  }
  if (!info.contains("verbs")) info["verbs"] = json::array();
  return info;
}

bool has_entries(const json::object& rule, std::string_view key) {
  const auto* value = rule.if_contains(key);
  return value != nullptr && value->is_array() && !value->get_array().empty();
}

}  // namespace

HttpResponse serve_self_subject_rules_review(const HttpRequest& request, const UserInfo& user,
                                             const RbacAuthorizer& authorizer) {
  json::object body =
      parse_object_body(request, "SelfSubjectRulesReview", "authorization.k8s.io/v1");
  json::object spec;
  if (const auto* value = find_object(body, "spec")) spec = *value;
  const std::string rules_namespace = string_at(spec, "namespace");
  json::array resource_rules;
  json::array non_resource_rules;
  if (user.in_group(kSystemMasters)) {  // the privileged-groups authorizer's rules
    resource_rules.push_back(json::object{{"verbs", json::array{"*"}},
                                          {"apiGroups", json::array{"*"}},
                                          {"resources", json::array{"*"}}});
    non_resource_rules.push_back(
        json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}});
  }
  const auto errors = authorizer.visit_rules(
      user, rules_namespace, [&](const json::object& rule, const RuleSource&) {
        if (has_entries(rule, "resources"))
          resource_rules.push_back(
              rule_info(rule, {"verbs", "apiGroups", "resources", "resourceNames"}));
        if (has_entries(rule, "nonResourceURLs"))
          non_resource_rules.push_back(rule_info(rule, {"verbs", "nonResourceURLs"}));
        return true;
      });
  json::object status{{"resourceRules", std::move(resource_rules)},
                      {"nonResourceRules", std::move(non_resource_rules)},
                      {"incomplete", !errors.empty()}};
  if (!errors.empty()) {
    std::string joined;
    for (const auto& error : errors) joined += (joined.empty() ? "" : ", ") + error;
    status["evaluationError"] = errors.size() == 1 ? joined : "[" + joined + "]";
  }
  json::object response{{"kind", "SelfSubjectRulesReview"},
                        {"apiVersion", "authorization.k8s.io/v1"},
                        {"metadata", json::object()},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  return object_response(201, std::move(response));
}

HttpResponse serve_self_subject_access_review(const HttpRequest& request, const UserInfo& user,
                                              const RbacAuthorizer& authorizer) {
  json::object body =
      parse_object_body(request, "SelfSubjectAccessReview", "authorization.k8s.io/v1");
  json::object spec;
  if (const auto* value = find_object(body, "spec")) spec = *value;
  const Attributes attributes = review_attributes(spec, "SelfSubjectAccessReview", user);
  const Decision decision = authorizer.authorize(attributes);
  json::object status{{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  json::object response{{"kind", "SelfSubjectAccessReview"},
                        {"apiVersion", "authorization.k8s.io/v1"},
                        {"metadata", json::object()},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  return object_response(201, std::move(response));
}

HttpResponse serve_self_subject_review(const HttpRequest& request, const UserInfo& user) {
  parse_object_body(request, "SelfSubjectReview", "authentication.k8s.io/v1");
  json::array groups;
  for (const auto& group : user.groups) groups.emplace_back(group);
  json::object info{{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  info["groups"] = std::move(groups);
  if (!user.extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : user.extra)
      extra[key] = json::array(values.begin(), values.end());
    info["extra"] = std::move(extra);
  }
  json::object response{{"kind", "SelfSubjectReview"},
                        {"apiVersion", "authentication.k8s.io/v1"},
                        {"metadata", json::object()},
                        {"status", json::object{{"userInfo", std::move(info)}}}};
  return object_response(201, std::move(response));
}

}  // namespace rg::sim::auth
