// The RBAC decision, following kubernetes plugin/pkg/auth/authorizer/rbac (rbac.go, and
// rule.go's VisitRulesFor) and pkg/apis/rbac/v1/evaluation_helpers.go for rule matching.
#include "sim/auth/rbac_authorizer.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <vector>

#include "sim/auth/required_type.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

/// Whether the string list `key` of a rule holds `wanted` or "*".
bool has(const json::object& rule, std::string_view key, std::string_view wanted) {
  if (const auto* list = find_array(rule, key))
    for (const auto& item : *list)
      if (item.is_string() && (item.get_string() == "*" || item.get_string() == wanted))
        return true;
  return false;
}

bool resource_matches(const json::object& rule, const Attributes& a) {
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  const auto* resources = find_array(rule, "resources");
  if (resources == nullptr) return false;
  for (const auto& item : *resources) {
    if (!item.is_string()) continue;
    std::string_view resource = item.get_string();
    if (resource == "*" || resource == combined) return true;
    if (!a.subresource.empty() && resource.starts_with("*/") && resource.substr(2) == a.subresource)
      return true;
  }
  return false;
}

bool resource_name_matches(const json::object& rule, std::string_view name) {
  const auto* names = find_array(rule, "resourceNames");
  if (names == nullptr || names->empty()) return true;
  if (name.empty()) return false;
  for (const auto& item : *names)
    if (item.is_string() && item.get_string() == name) return true;
  return false;
}

bool non_resource_url_matches(const json::object& rule, std::string_view path) {
  const auto* urls = find_array(rule, "nonResourceURLs");
  if (urls == nullptr) return false;
  for (const auto& item : *urls) {
    if (!item.is_string()) continue;
    std::string_view url = item.get_string();
    if (url == "*" || url == path) return true;
    if (url.ends_with('*')) {
      auto prefix = url;
      while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
      if (path.starts_with(prefix)) return true;
    }
  }
  return false;
}

bool rule_allows(const json::object& rule, const Attributes& a) {
  if (!has(rule, "verbs", a.verb)) return false;
  if (!a.resource_request) return non_resource_url_matches(rule, a.path);
  return has(rule, "apiGroups", a.group) && resource_matches(rule, a) &&
         resource_name_matches(rule, a.name);
}

/// rbac's appliesToUser: a subject names the user, one of its groups, or its ServiceAccount
/// (namespace defaulting to the binding's).
bool applies_to(const json::object& subject, const UserInfo& user, std::string_view binding_ns) {
  const auto kind = string_view_at(subject, "kind");
  const auto name = string_view_at(subject, "name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return user.in_group(name);
  if (kind == "ServiceAccount") {
    auto ns = string_view_at(subject, "namespace");
    if (ns.empty()) ns = binding_ns;
    return !ns.empty() && user.name == service_account_username(ns, name);
  }
  return false;
}

std::string describe_subject(const json::object& subject, std::string_view binding_ns) {
  const auto kind = string_view_at(subject, "kind");
  const auto name = string_view_at(subject, "name");
  if (kind == "ServiceAccount") {
    auto ns = string_view_at(subject, "namespace");
    return fmt::format("{} \"{}/{}\"", kind, name, ns.empty() ? binding_ns : ns);
  }
  return fmt::format("{} \"{}\"", kind, name);
}

}  // namespace

RbacAuthorizer::RbacAuthorizer(const Store& store, const ResourceTable& table)
    : store_(store),
      roles_(required_type(table, kRbacGroup, "roles")),
      cluster_roles_(required_type(table, kRbacGroup, "clusterroles")),
      role_bindings_(required_type(table, kRbacGroup, "rolebindings")),
      cluster_role_bindings_(required_type(table, kRbacGroup, "clusterrolebindings")) {}

std::string RuleSource::describe() const {
  if (binding_namespace.empty())
    return fmt::format("ClusterRoleBinding \"{}\" of {} \"{}\" to {}", binding, role_kind,
                       role_name, describe_subject(*subject, ""));
  return fmt::format("RoleBinding \"{}/{}\" of {} \"{}\" to {}", binding, binding_namespace,
                     role_kind, role_name, describe_subject(*subject, binding_namespace));
}

std::vector<std::string> RbacAuthorizer::visit_rules(const UserInfo& user,
                                                     std::string_view namespace_,
                                                     const RuleVisitor& visit) const {
  std::vector<std::string> errors;
  // The bindings of one kind (namespace "" = ClusterRoleBindings); false once `visit` stopped.
  auto visit_bindings = [&](const ResourceType& bindings, std::string_view binding_ns) {
    const auto listed = store_.list(bindings, binding_ns);
    for (const auto& stored : listed->items) {
      const json::object binding = stored->parse();
      const auto* subjects = find_array(binding, "subjects");
      if (subjects == nullptr) continue;
      const json::object* subject = nullptr;
      for (const auto& item : *subjects) {
        if (item.is_object() && applies_to(item.get_object(), user, binding_ns)) {
          subject = &item.get_object();
          break;
        }
      }
      if (subject == nullptr) continue;
      const auto* ref_value = binding.if_contains("roleRef");
      if (ref_value == nullptr || !ref_value->is_object()) continue;
      const auto& ref = ref_value->get_object();
      const RuleSource source{stored->name, binding_ns, string_view_at(ref, "kind"),
                              string_view_at(ref, "name"), subject};
      ObjectPtr role;
      if (source.role_kind == "ClusterRole") {
        role = store_.get(cluster_roles_, "", source.role_name);
        if (!role)
          errors.push_back(fmt::format("clusterrole.rbac.authorization.k8s.io \"{}\" not found",
                                       source.role_name));
      } else if (source.role_kind == "Role" && !binding_ns.empty()) {
        role = store_.get(roles_, binding_ns, source.role_name);
        if (!role)
          errors.push_back(
              fmt::format("role.rbac.authorization.k8s.io \"{}\" not found", source.role_name));
      } else {
        errors.push_back(fmt::format("unsupported role reference kind: \"{}\"", source.role_kind));
      }
      if (!role) continue;
      const json::object role_object = role->parse();
      const auto* rules = find_array(role_object, "rules");
      if (rules == nullptr) continue;
      for (const auto& rule : *rules)
        if (rule.is_object() && !visit(rule.get_object(), source)) return false;
    }
    return true;
  };
  if (visit_bindings(cluster_role_bindings_, "") && !namespace_.empty())
    visit_bindings(role_bindings_, namespace_);
  return errors;
}

Decision RbacAuthorizer::authorize(const Attributes& attributes) const {
  if (attributes.user.in_group(kSystemMasters)) return {true, ""};
  std::string allowed_by;
  const auto errors = visit_rules(attributes.user, attributes.namespace_,
                                  [&](const json::object& rule, const RuleSource& source) {
                                    if (!rule_allows(rule, attributes)) return true;
                                    allowed_by = source.describe();
                                    return false;
                                  });
  if (!allowed_by.empty()) return {true, "RBAC: allowed by " + allowed_by};
  if (errors.empty()) return {false, ""};
  if (errors.size() == 1) return {false, "RBAC: " + errors.front()};
  std::string joined;
  for (const auto& error : errors) joined += (joined.empty() ? "" : ", ") + error;
  return {false, "RBAC: [" + joined + "]"};
}

}  // namespace rg::sim::auth
