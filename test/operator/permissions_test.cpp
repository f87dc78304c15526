// The permissions the operator requires for its flags (what the startup self-check asks for and
// test/ship/rbac_drift.py compares with manifests/).
#include <doctest/doctest.h>

#include <algorithm>

#include "operator/permissions.hpp"

namespace rg::op {
namespace {

bool has(const std::vector<Permission>& list, std::string_view description) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Permission& p) { return p.describe() == description; });
}

TEST_CASE("cluster-wide: informers, annotations, scale and Events everywhere; node Leases read") {
  const auto wanted = required_permissions(Options{}, "ops");
  for (const char* expected :
       {"list deployments.apps cluster-wide", "watch deployments.apps cluster-wide",
        "patch deployments.apps cluster-wide", "patch deployments.apps/scale cluster-wide",
        "list pods cluster-wide", "watch pods cluster-wide", "list nodes cluster-wide",
        "watch nodes cluster-wide", "create events cluster-wide", "patch events cluster-wide",
        "list horizontalpodautoscalers.autoscaling cluster-wide",
        "watch horizontalpodautoscalers.autoscaling cluster-wide",
        "list leases.coordination.k8s.io in namespace \"kube-node-lease\"",
        "watch leases.coordination.k8s.io in namespace \"kube-node-lease\"",
        "create tokenreviews.authentication.k8s.io cluster-wide",
        "create subjectaccessreviews.authorization.k8s.io cluster-wide"}) {
    CAPTURE(expected);
    CHECK(has(wanted, expected));
  }
  CHECK(wanted.size() == 16);
  // Node Leases are only read, and only there; no leader-election Lease without --leader-elect.
  CHECK(std::all_of(wanted.begin(), wanted.end(), [](const Permission& p) {
    return p.resource != "leases" ||
           (p.namespace_ == "kube-node-lease" && (p.verb == "list" || p.verb == "watch"));
  }));
}

TEST_CASE("--node-lease-grace=0: no permission on node Leases") {
  Options options;
  options.node_lease_grace = "0";
  const auto wanted = required_permissions(options, "ops");
  CHECK(std::none_of(wanted.begin(), wanted.end(),
                     [](const Permission& p) { return p.resource == "leases"; }));
  CHECK(wanted.size() == 14);
}

TEST_CASE("--namespace: namespaced permissions in each watched namespace, nodes cluster-wide") {
  Options options;
  options.namespaces = {"shop", "blog"};
  const auto wanted = required_permissions(options, "ops");
  CHECK(has(wanted, "watch pods in namespace \"shop\""));
  CHECK(has(wanted, "patch deployments.apps/scale in namespace \"blog\""));
  CHECK_FALSE(has(wanted, "watch pods cluster-wide"));
  CHECK(has(wanted, "watch horizontalpodautoscalers.autoscaling in namespace \"blog\""));
  CHECK(has(wanted, "watch nodes cluster-wide"));
  CHECK(has(wanted, "watch leases.coordination.k8s.io in namespace \"kube-node-lease\""));
  CHECK(wanted.size() == 2 * 10 + 2 + 2 + 2);
}

TEST_CASE("--detect-hpa=false: no permission on HorizontalPodAutoscalers") {
  Options options;
  options.detect_hpa = false;
  const auto wanted = required_permissions(options, "ops");
  CHECK(std::none_of(wanted.begin(), wanted.end(),
                     [](const Permission& p) { return p.resource == "horizontalpodautoscalers"; }));
  CHECK(wanted.size() == 14);
}

TEST_CASE("leader election: the Lease in --leader-election-namespace, else the own namespace") {
  Options options;
  options.leader_elect = true;
  auto wanted = required_permissions(options, "ops");
  for (const char* verb : {"get", "create", "update"}) {
    CHECK(has(wanted, std::string(verb) + " leases.coordination.k8s.io in namespace \"ops\""));
  }
  options.leader_election_namespace = "locks";
  wanted = required_permissions(options, "ops");
  CHECK(has(wanted, "update leases.coordination.k8s.io in namespace \"locks\""));
  CHECK_FALSE(has(wanted, "update leases.coordination.k8s.io in namespace \"ops\""));
}

TEST_CASE("--taint-suspect-nodes: get and patch on nodes; never without the flag") {
  Options options;
  auto wanted = required_permissions(options, "ops");
  CHECK_FALSE(has(wanted, "patch nodes cluster-wide"));
  CHECK_FALSE(has(wanted, "get nodes cluster-wide"));
  options.taint_suspect_nodes = true;
  wanted = required_permissions(options, "ops");
  CHECK(has(wanted, "get nodes cluster-wide"));
  CHECK(has(wanted, "patch nodes cluster-wide"));
  CHECK(wanted.size() == 18);
}

TEST_CASE("secure metrics: create tokenreviews and subjectaccessreviews, only while served") {
  Options options;
  for (const char* review : {"create tokenreviews.authentication.k8s.io cluster-wide",
                             "create subjectaccessreviews.authorization.k8s.io cluster-wide"}) {
    CAPTURE(review);
    options.metrics_secure = true;
    options.metrics_bind_address = ":8443";
    CHECK(has(required_permissions(options, "ops"), review));
    options.metrics_secure = false;
    CHECK_FALSE(has(required_permissions(options, "ops"), review));
    options.metrics_secure = true;
    options.metrics_bind_address = "0";
    CHECK_FALSE(has(required_permissions(options, "ops"), review));
  }
}

TEST_CASE("--mark-suspect-pods-not-ready: patch on pods/status in every watched scope only") {
  Options options;
  const auto without = required_permissions(options, "ops");
  CHECK_FALSE(has(without, "patch pods/status cluster-wide"));
  options.mark_suspect_pods_not_ready = true;
  auto wanted = required_permissions(options, "ops");
  CHECK(has(wanted, "patch pods/status cluster-wide"));
  CHECK(wanted.size() == without.size() + 1);
  options.namespaces = {"shop", "blog"};
  wanted = required_permissions(options, "ops");
  CHECK(has(wanted, "patch pods/status in namespace \"shop\""));
  CHECK(has(wanted, "patch pods/status in namespace \"blog\""));
  CHECK_FALSE(has(wanted, "patch pods/status cluster-wide"));
}

TEST_CASE("the error lists exactly what is missing and why") {
  const std::vector<Permission> missing{
      {"patch", "apps", "deployments", "scale", "", "scaling Deployments"}};
  const std::string message = missing_permissions_message(missing);
  CHECK(message.find("lacks 1 permission") != std::string::npos);
  CHECK(message.find("- patch deployments.apps/scale cluster-wide (scaling Deployments)") !=
        std::string::npos);
}

}  // namespace
}  // namespace rg::op
