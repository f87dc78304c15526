// TokenReview and SubjectAccessReview, as a delegating server (an operator's secure /metrics)
// uses them: good, garbage, expired-audience and unbound tokens (always 201, status.error on
// failure), RBAC on non-resource URLs, validation, who may ask, discovery, system:auth-delegator.
#include <doctest/doctest.h>

#include "test/sim/auth_cluster.hpp"

namespace json = boost::json;
using rg::sim::test::bearer;
using rg::sim::test::binding;
using rg::sim::test::call;
using rg::sim::test::Cluster;
using rg::sim::test::kSa;
using rg::sim::test::kSaSubject;
using rg::sim::test::Reply;
using rg::sim::test::role;
using rg::sim::test::str;

namespace {

constexpr const char* kTokenReviews = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr const char* kSubjectReviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

Reply token_review(Cluster& cluster, const std::string& spec) {
  return call(
      cluster.port(), "POST", kTokenReviews,
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":)" + spec + "}",
      cluster.admin);
}

json::object reviewed(Cluster& cluster, const std::string& token,
                      const std::string& audiences = "") {
  auto reply =
      token_review(cluster, R"({"token":")" + token + "\"" +
                                (audiences.empty() ? "" : ",\"audiences\":" + audiences) + "}");
  REQUIRE_MESSAGE(reply.status == 201, reply.body);
  auto body = reply.json().as_object();
  CHECK(body.at("kind") == "TokenReview");
  return body.at("status").as_object();
}

Reply subject_review(Cluster& cluster, const std::string& body_rest,
                     const rg::sim::test::Headers& headers) {
  return call(
      cluster.port(), "POST", kSubjectReviews,
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",)" + body_rest + "}",
      headers);
}

bool allowed(Cluster& cluster, const std::string& spec) {
  auto reply = subject_review(cluster, R"("spec":)" + spec, cluster.admin);
  REQUIRE_MESSAGE(reply.status == 201, reply.body);
  return reply.json().at("status").at("allowed").as_bool();
}

const std::string kSaMetrics =
    R"({"user":"system:serviceaccount:team:sa","groups":["system:serviceaccounts",)"
    R"("system:serviceaccounts:team","system:authenticated"],)"
    R"("nonResourceAttributes":{"path":"/metrics","verb":"get"}})";

}  // namespace

TEST_CASE("TokenReview: a ServiceAccount token authenticates with its user and audiences") {
  Cluster cluster;
  const auto status = reviewed(cluster, cluster.token());
  CHECK(status.at("authenticated") == true);
  CHECK(str(status.at("user").at("username")) == kSa);
  CHECK(!str(status.at("user").at("uid")).empty());
  CHECK(status.at("user").at("groups") == json::array{"system:serviceaccounts",
                                                      "system:serviceaccounts:team",
                                                      "system:authenticated"});
  CHECK(status.at("audiences") == json::array{"https://kubernetes.default.svc.cluster.local"});
  CHECK(!status.contains("error"));

  // Audiences: a token minted for "prometheus" is good for it, not for the API server.
  const auto scoped = cluster.token(R"({"spec":{"audiences":["prometheus","other"]}})");
  const auto for_it = reviewed(cluster, scoped, R"(["prometheus"])");
  CHECK(for_it.at("authenticated") == true);
  CHECK(for_it.at("audiences") == json::array{"prometheus"});
  const auto for_api = reviewed(cluster, scoped);
  CHECK(!for_api.contains("authenticated"));
  CHECK(str(for_api.at("error")) ==
        R"([invalid bearer token, token audiences ["prometheus" "other"] is invalid for the )"
        R"(target audiences ["https://kubernetes.default.svc.cluster.local"]])");
}

TEST_CASE("TokenReview: garbage, forged and unbound tokens are 201 with status.error") {
  Cluster cluster;
  const auto garbage = reviewed(cluster, "not-a-token");
  CHECK(!garbage.contains("authenticated"));
  CHECK(garbage.at("user") == json::object());
  CHECK(garbage.at("error") == "invalid bearer token");
  CHECK(!garbage.contains("audiences"));

  // A token whose ServiceAccount was deleted (and re-created with another uid).
  const auto token = cluster.token();
  REQUIRE(call(cluster.port(), "DELETE", "/api/v1/namespaces/team/serviceaccounts/sa", "",
               cluster.admin)
              .status == 200);
  CHECK(reviewed(cluster, token).at("error") ==
        R"([invalid bearer token, serviceaccounts "sa" not found])");
  cluster.create("/api/v1/namespaces/team/serviceaccounts", R"({"metadata":{"name":"sa"}})");
  const auto replaced = reviewed(cluster, token);
  CHECK(!replaced.contains("authenticated"));
  CHECK(str(replaced.at("error")).starts_with("[invalid bearer token, service account UID ("));

  // The administrator's static token is audience-agnostic: good for the API audiences only.
  CHECK(reviewed(cluster, cluster.server.admin_token()).at("user").at("username") ==
        "kubernetes-admin");
  CHECK(reviewed(cluster, cluster.server.admin_token(), R"(["prometheus"])").at("error") ==
        "invalid bearer token");
}

TEST_CASE("TokenReview: validation and who may ask") {
  Cluster cluster;
  auto empty = token_review(cluster, "{}");
  CHECK(empty.status == 400);
  CHECK(str(empty.json().at("message")) == "token is required for TokenReview in authentication");
  auto wrong_kind = call(cluster.port(), "POST", kTokenReviews,
                         R"({"apiVersion":"v1","kind":"Pod","spec":{"token":"x"}})", cluster.admin);
  CHECK(wrong_kind.status == 400);

  // A ServiceAccount may not review tokens until system:auth-delegator is bound to it.
  const auto token = cluster.token();
  const std::string body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                           R"("spec":{"token":")" +
                           token + R"("}})";
  auto denied = call(cluster.port(), "POST", kTokenReviews, body, bearer(token));
  CHECK(denied.status == 403);
  CHECK(str(denied.json().at("message")) ==
        R"(tokenreviews.authentication.k8s.io is forbidden: User ")" + kSa +
            R"(" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at )"
            R"(the cluster scope)");
  cluster.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                 binding("ClusterRoleBinding", "sa-delegator", "ClusterRole",
                         "system:auth-delegator", kSaSubject));
  auto own = call(cluster.port(), "POST", kTokenReviews, body, bearer(token));
  REQUIRE_MESSAGE(own.status == 201, own.body);
  CHECK(own.json().at("status").at("authenticated") == true);
  auto review = subject_review(cluster, R"("spec":)" + kSaMetrics, bearer(token));
  CHECK(review.status == 201);
}

TEST_CASE("SubjectAccessReview: RBAC on the non-resource URL /metrics and on resources") {
  Cluster cluster;
  CHECK_FALSE(allowed(cluster, kSaMetrics));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                 role("ClusterRole", "metrics-reader",
                      R"([{"nonResourceURLs":["/metrics"],"verbs":["get"]}])"));
  cluster.create(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      binding("ClusterRoleBinding", "sa-metrics", "ClusterRole", "metrics-reader", kSaSubject));
  auto reply = subject_review(cluster, R"("spec":)" + kSaMetrics, cluster.admin);
  REQUIRE(reply.status == 201);
  CHECK(reply.json().at("status").at("allowed") == true);
  CHECK(reply.json().at("status").at("reason") ==
        R"(RBAC: allowed by ClusterRoleBinding "sa-metrics" of ClusterRole "metrics-reader" to )"
        R"(ServiceAccount "sa/team")");
  CHECK(str(reply.json().at("spec").at("user")) == kSa);
  // Only the path and verb granted; a group grants to its members.
  CHECK_FALSE(allowed(
      cluster,
      R"({"user":")" + kSa + R"(","nonResourceAttributes":{"path":"/metrics","verb":"post"}})"));
  CHECK_FALSE(allowed(cluster, R"({"user":")" + kSa +
                                   R"(","nonResourceAttributes":{"path":"/debug","verb":"get"}})"));
  CHECK(allowed(cluster, R"({"user":"someone","groups":["system:masters"],)"
                         R"("resourceAttributes":{"verb":"delete","resource":"nodes"}})"));
  CHECK_FALSE(allowed(cluster, R"({"user":")" + kSa +
                                   R"(","resourceAttributes":{"verb":"list","resource":"pods",)"
                                   R"("namespace":"team"}})"));
}

TEST_CASE("SubjectAccessReview: validation as the API server's") {
  Cluster cluster;
  auto neither = subject_review(cluster, R"("spec":{"user":"u"})", cluster.admin);
  CHECK(neither.status == 422);
  CHECK(str(neither.json().at("message"))
            .ends_with(
                "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  auto nobody = subject_review(
      cluster, R"("spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"}})",
      cluster.admin);
  CHECK(nobody.status == 422);
  CHECK(str(nobody.json().at("message")) ==
        R"(SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: )"
        R"("": at least one of user or group must be specified)");
  auto named = subject_review(cluster,
                              R"("metadata":{"name":"x"},"spec":{"user":"u",)"
                              R"("nonResourceAttributes":{"path":"/metrics","verb":"get"}})",
                              cluster.admin);
  CHECK(named.status == 422);
  // Go clients send "creationTimestamp": null: still empty metadata.
  auto go_client = subject_review(cluster,
                                  R"("metadata":{"creationTimestamp":null},"spec":{"user":"u",)"
                                  R"("nonResourceAttributes":{"path":"/metrics","verb":"get"}})",
                                  cluster.admin);
  CHECK(go_client.status == 201);
}

TEST_CASE(
    "without RBAC (AlwaysAllow) every SubjectAccessReview is allowed; tokens still reviewed") {
  rg::sim::Server server;  // in-process default: no authentication, no RBAC
  auto review = call(server.port(), "POST", kSubjectReviews,
                     R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)"
                     R"("spec":{"user":"anyone","nonResourceAttributes":{"path":"/metrics",)"
                     R"("verb":"get"}}})");
  REQUIRE_MESSAGE(review.status == 201, review.body);
  CHECK(review.json().at("status").at("allowed") == true);
  auto garbage = call(server.port(), "POST", kTokenReviews,
                      R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1",)"
                      R"("spec":{"token":"garbage"}})");
  REQUIRE(garbage.status == 201);
  CHECK(garbage.json().at("status").at("error") == "invalid bearer token");
}

TEST_CASE("discovery lists tokenreviews and subjectaccessreviews with create; bootstrap role") {
  Cluster cluster;
  auto authentication =
      call(cluster.port(), "GET", "/apis/authentication.k8s.io/v1", "", cluster.admin).json();
  bool token_reviews = false;
  for (const auto& resource : authentication.at("resources").as_array())
    if (resource.at("name") == "tokenreviews") {
      token_reviews = true;
      CHECK(resource.at("kind") == "TokenReview");
      CHECK(resource.at("verbs") == json::array{"create"});
      CHECK(resource.at("namespaced") == false);
    }
  CHECK(token_reviews);
  auto delegator = call(cluster.port(), "GET",
                        "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:auth-delegator", "",
                        cluster.admin);
  REQUIRE(delegator.status == 200);
  const auto role_object = delegator.json();
  const auto& rules = role_object.at("rules").as_array();
  REQUIRE(rules.size() == 2);
  CHECK(rules.at(0).at("resources") == json::array{"tokenreviews"});
  CHECK(rules.at(1).at("resources") == json::array{"subjectaccessreviews"});
}
