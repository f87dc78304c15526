// The operator's permissions and the startup self-check (see permissions.hpp).
#include "operator/permissions.hpp"

#include <boost/json.hpp>

#include "client/rest/rest_client.hpp"
#include "operator/annotations.hpp"

namespace rg::op {
namespace json = boost::json;

std::string Permission::describe() const {
  std::string text = verb + " " + resource + (group.empty() ? "" : "." + group) +
                     (subresource.empty() ? "" : "/" + subresource);
  text += namespace_.empty() ? " cluster-wide" : " in namespace \"" + namespace_ + "\"";
  return text;
}

std::vector<Permission> required_permissions(const Options& options,
                                             std::string_view own_namespace) {
  std::vector<Permission> wanted;
  // Where the informers watch and the reconciler writes: every namespace, or each --namespace.
  std::vector<std::string> scopes = options.namespaces;
  if (scopes.empty()) scopes.emplace_back();
  for (const std::string& ns : scopes) {
    for (const char* verb : {"list", "watch"}) {
      wanted.push_back({verb, "apps", "deployments", "", ns, "the Deployment informer"});
      wanted.push_back({verb, "", "pods", "", ns, "the Pod informer"});
      if (options.detect_hpa) {
        wanted.push_back({verb, "autoscaling", "horizontalpodautoscalers", "", ns,
                          "the HorizontalPodAutoscaler informer (--detect-hpa)"});
      }
    }
    wanted.push_back(
        {"patch", "apps", "deployments", "", ns, "recording replica-guard.io annotations"});
    wanted.push_back({"patch", "apps", "deployments", "scale", ns, "scaling Deployments"});
    for (const char* verb : {"create", "patch"})
      wanted.push_back({verb, "", "events", "", ns, "Events on the Deployments it manages"});
    if (options.mark_suspect_pods_not_ready) {
      wanted.push_back({"patch", "", "pods", "status", ns,
                        "marking pods on suspect nodes NotReady (--mark-suspect-pods-not-ready)"});
    }
  }
  for (const char* verb : {"list", "watch"})
    wanted.push_back({verb, "", "nodes", "", "", "the Node informer"});
  if (options.taint_suspect_nodes) {
    for (const char* verb : {"get", "patch"})
      wanted.push_back(
          {verb, "", "nodes", "", "", "tainting suspect nodes (--taint-suspect-nodes)"});
  }
  if (parse_duration(options.node_lease_grace).count() > 0) {
    for (const char* verb : {"list", "watch"}) {
      wanted.push_back({verb, "coordination.k8s.io", "leases", "", std::string(kNodeLeaseNamespace),
                        "the node Lease informer (--node-lease-grace)"});
    }
  }
  if (options.metrics_secure && options.metrics_bind_address != "0") {
    // controller-runtime's filters.WithAuthenticationAndAuthorization asks the same.
    wanted.push_back({"create", "authentication.k8s.io", "tokenreviews", "", "",
                      "authenticating /metrics scrapers (--metrics-secure)"});
    wanted.push_back({"create", "authorization.k8s.io", "subjectaccessreviews", "", "",
                      "authorizing /metrics scrapers (--metrics-secure)"});
  }
  if (options.leader_elect) {
    const std::string lease_namespace = options.leader_election_namespace.empty()
                                            ? std::string(own_namespace)
                                            : options.leader_election_namespace;
    for (const char* verb : {"get", "create", "update"})
      wanted.push_back(
          {verb, "coordination.k8s.io", "leases", "", lease_namespace, "leader election"});
  }
  return wanted;
}

boost::asio::awaitable<std::vector<Permission>> missing_permissions(
    client::RestClient& client, std::vector<Permission> wanted) {
  const client::ResourceRef reviews{
      "authorization.k8s.io", "v1", "selfsubjectaccessreviews", false, {}, {}};
  std::vector<Permission> missing;
  for (const Permission& p : wanted) {
    json::object attributes{{"verb", p.verb}, {"group", p.group}, {"resource", p.resource}};
    if (!p.subresource.empty()) attributes["subresource"] = p.subresource;
    if (!p.namespace_.empty()) attributes["namespace"] = p.namespace_;
    json::value review = {{"apiVersion", "authorization.k8s.io/v1"},
                          {"kind", "SelfSubjectAccessReview"},
                          {"spec", {{"resourceAttributes", std::move(attributes)}}}};
    const client::CreateOptions options;
    const json::value answer = co_await client.create(reviews, review, options);
    const auto* status = answer.as_object().if_contains("status");
    const auto* allowed = status != nullptr && status->is_object()
                              ? status->as_object().if_contains("allowed")
                              : nullptr;
    if (allowed == nullptr || !allowed->is_bool() || !allowed->as_bool()) missing.push_back(p);
  }
  co_return missing;
}

std::string missing_permissions_message(const std::vector<Permission>& missing) {
  std::string text = "replica-guard lacks " + std::to_string(missing.size()) +
                     " permission(s) it needs; grant them to its ServiceAccount (the rules are "
                     "in manifests/20-rbac.yaml and the Helm chart):";
  for (const Permission& p : missing) text += "\n  - " + p.describe() + " (" + p.why + ")";
  return text;
}

}  // namespace rg::op
