// The bootstrap ClusterRoles and ClusterRoleBindings, as kube-apiserver creates them at start.
#include "sim/auth/bootstrap_policy.hpp"

#include <boost/json.hpp>

#include "sim/auth/required_type.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

json::object bootstrap_metadata(std::string_view name) {
  return {{"name", name},
          {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
          {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

json::array strings(std::initializer_list<std::string_view> items) {
  json::array out;
  for (auto item : items) out.emplace_back(item);
  return out;
}

json::object cluster_role(std::string_view name, json::array rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", bootstrap_metadata(name)},
          {"rules", std::move(rules)}};
}

json::object binding_to_groups(std::string_view name,
                               std::initializer_list<std::string_view> groups) {
  json::array subjects;
  for (auto group : groups)
    subjects.push_back(json::object{
        {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", group}});
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", bootstrap_metadata(name)},
          {"roleRef",
           json::object{
               {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
          {"subjects", std::move(subjects)}};
}

}  // namespace

void bootstrap_policy(Registry& registry) {
  const auto& roles = required_type(registry.table(), kRbacGroup, "clusterroles");
  const auto& bindings = required_type(registry.table(), kRbacGroup, "clusterrolebindings");
  auto create = [&](const ResourceType& type, json::object object) {
    const auto name = std::string(object.at("metadata").at("name").as_string());
    if (registry.store().get(type, "", name)) return;
    // Straight into the store, as kube-apiserver's own bootstrap writes them.
    registry.store().create(type, std::move(object));
  };
  json::array all_rules;
  all_rules.push_back(json::object{
      {"apiGroups", strings({"*"})}, {"resources", strings({"*"})}, {"verbs", strings({"*"})}});
  all_rules.push_back(json::object{{"nonResourceURLs", strings({"*"})}, {"verbs", strings({"*"})}});
  create(roles, cluster_role("cluster-admin", std::move(all_rules)));
  create(bindings, binding_to_groups("cluster-admin", {"system:masters"}));

  create(roles,
         cluster_role("system:discovery",
                      json::array{json::object{
                          {"nonResourceURLs",
                           strings({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                    "/openapi", "/openapi/*", "/readyz", "/version", "/version/"})},
                          {"verbs", strings({"get"})}}}));
  create(bindings, binding_to_groups("system:discovery", {"system:authenticated"}));

  create(roles,
         cluster_role("system:basic-user",
                      json::array{json::object{{"apiGroups", strings({"authorization.k8s.io"})},
                                               {"resources", strings({"selfsubjectaccessreviews",
                                                                      "selfsubjectrulesreviews"})},
                                               {"verbs", strings({"create"})}},
                                  json::object{{"apiGroups", strings({"authentication.k8s.io"})},
                                               {"resources", strings({"selfsubjectreviews"})},
                                               {"verbs", strings({"create"})}}}));
  create(bindings, binding_to_groups("system:basic-user", {"system:authenticated"}));

  // Bound by whoever delegates authentication and authorization (no default binding).
  create(roles,
         cluster_role("system:auth-delegator",
                      json::array{json::object{{"apiGroups", strings({"authentication.k8s.io"})},
                                               {"resources", strings({"tokenreviews"})},
                                               {"verbs", strings({"create"})}},
                                  json::object{{"apiGroups", strings({"authorization.k8s.io"})},
                                               {"resources", strings({"subjectaccessreviews"})},
                                               {"verbs", strings({"create"})}}}));

  create(roles, cluster_role("system:public-info-viewer",
                             json::array{json::object{
                                 {"nonResourceURLs", strings({"/healthz", "/livez", "/readyz",
                                                              "/version", "/version/"})},
                                 {"verbs", strings({"get"})}}}));
  create(bindings, binding_to_groups("system:public-info-viewer",
                                     {"system:authenticated", "system:unauthenticated"}));
}

}  // namespace rg::sim::auth
