// kube-sim's serving security: HTTPS with the generated CA, 401 without credentials,
// ServiceAccount tokens from the TokenRequest API, RBAC decisions and their exact 403 messages,
// SelfSubjectAccessReview (JSON and protobuf) and SelfSubjectReview, and the RestConfig helpers.
#include <doctest/doctest.h>

#include <unistd.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "client/cert/certificates.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "sim/api_error.hpp"
#include "sim/server.hpp"
#include "test/sim/auth_cluster.hpp"
#include "test/sim/tls_client.hpp"

namespace json = boost::json;
using rg::sim::test::bearer;
using rg::sim::test::binding;
using rg::sim::test::call;
using rg::sim::test::Cluster;
using rg::sim::test::Headers;
using rg::sim::test::kSa;
using rg::sim::test::kSaSubject;
using rg::sim::test::role;
using rg::sim::test::secured;
using rg::sim::test::str;
using rg::sim::test::tls_call;

namespace {

json::value ssar(Cluster& cluster, const std::string& token, const std::string& spec) {
  auto reply =
      call(cluster.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
           R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":)" +
               spec + "}",
           bearer(token));
  REQUIRE_MESSAGE(reply.status == 201, reply.body);
  return reply.json();
}

// Protobuf encoding of length-delimited fields, enough for a SelfSubjectAccessReview body.
std::string varint(std::size_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}
std::string field(int number, const std::string& bytes) {
  return varint(static_cast<std::size_t>(number) << 3 | 2) + varint(bytes.size()) + bytes;
}

/// Runs a client coroutine to completion on `io` (which must outlive the clients: their
/// connections live on it).
template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  io.restart();
  io.run();
  return future.get();
}

}  // namespace

TEST_CASE("HTTPS: the generated CA verifies 127.0.0.1; a client trusting another CA fails") {
  rg::sim::Server server(secured(true));
  CHECK(server.address().starts_with("https://127.0.0.1:"));
  REQUIRE(!server.ca_pem().empty());
  auto reply =
      tls_call(server.port(), server.ca_pem(), "GET", "/version", "", bearer(server.admin_token()));
  CHECK(reply.status == 200);
  CHECK(reply.json().as_object().contains("gitVersion"));

  const auto other = rg::client::generate_ca("someone-else");
  CHECK_THROWS_AS(tls_call(server.port(), other.cert_pem, "GET", "/version"),
                  boost::system::system_error);
}

TEST_CASE("HTTPS with a given certificate and key; unusable files are named") {
  const auto ca = rg::client::generate_ca("given-ca");
  rg::client::CertificateRequest request;
  request.common_name = "kube-sim";
  request.ip_addresses = {"127.0.0.1"};
  const auto serving = rg::client::issue_certificate(ca, request);
  const auto dir =
      std::filesystem::temp_directory_path() / ("sim-auth-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto options = secured(true);
  options.tls.cert_file = write("chain.pem", serving.cert_pem + ca.cert_pem);
  options.tls.private_key_file = write("key.pem", serving.key_pem);
  {
    rg::sim::Server server(options);
    CHECK(server.ca_pem() == serving.cert_pem + ca.cert_pem);
    CHECK(tls_call(server.port(), ca.cert_pem, "GET", "/version", "", bearer(server.admin_token()))
              .status == 200);
  }
  auto mismatched = options;
  mismatched.tls.private_key_file = write("other-key.pem", rg::client::generate_ca("x").key_pem);
  CHECK_THROWS_WITH_AS(rg::sim::Server{mismatched},
                       "the TLS private key does not match the TLS certificate",
                       std::runtime_error);
  auto missing = options;
  missing.tls.cert_file = (dir / "nope.pem").string();
  CHECK_THROWS_WITH_AS(rg::sim::Server{missing},
                       doctest::Contains("cannot read the TLS certificate (--tls-cert-file)"),
                       std::runtime_error);
  auto half = options;
  half.tls.private_key_file.clear();
  CHECK_THROWS_AS(rg::sim::Server{half}, std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("requests without valid credentials get 401 with the API server's Status") {
  Cluster cluster;
  const std::string unauthorized =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"Unauthorized","reason":"Unauthorized","code":401})";
  for (const auto& headers : {Headers{}, bearer("not-a-token"), bearer(""),
                              Headers{{"Authorization", "Basic YWRtaW46YWRtaW4="}}}) {
    auto reply = call(cluster.port(), "GET", "/api/v1/namespaces/default/pods", "", headers);
    CHECK(reply.status == 401);
    CHECK(reply.body == unauthorized);
  }
  CHECK(call(cluster.port(), "GET", "/version").status == 401);
  CHECK(call(cluster.port(), "GET", "/sim/faults").status == 401);
  // The administrator may do anything, the admin endpoint included.
  CHECK(call(cluster.port(), "GET", "/api/v1/pods", "", cluster.admin).status == 200);
  CHECK(call(cluster.port(), "GET", "/sim/faults", "", cluster.admin).status == 200);
  // The scheme is case-insensitive, as in the API server.
  CHECK(call(cluster.port(), "GET", "/api", "",
             {{"Authorization", "bearer " + cluster.server.admin_token()}})
            .status == 200);
}

TEST_CASE("anonymous requests, when allowed, meet RBAC as system:anonymous") {
  auto options = secured(false);
  options.auth.anonymous = true;
  rg::sim::Server server(options);
  CHECK(call(server.port(), "GET", "/version").status == 200);  // system:public-info-viewer
  auto reply = call(server.port(), "GET", "/api");
  CHECK(reply.status == 403);
  CHECK(str(reply.json().at("message")) ==
        R"(forbidden: User "system:anonymous" cannot get path "/api")");
  CHECK(call(server.port(), "GET", "/api", "", bearer("wrong")).status == 401);
}

TEST_CASE("a ServiceAccount token is forbidden until a RoleBinding grants, with exact messages") {
  Cluster cluster;
  auto request = call(cluster.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token",
                      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)"
                      R"("spec":{"expirationSeconds":1200}})",
                      cluster.admin);
  REQUIRE(request.status == 201);
  auto issued = request.json();
  CHECK(issued.at("kind") == "TokenRequest");
  CHECK(issued.at("spec").at("audiences") ==
        json::array{"https://kubernetes.default.svc.cluster.local"});
  CHECK(issued.at("spec").at("expirationSeconds") == 1200);
  CHECK(str(issued.at("status").at("expirationTimestamp")).size() == 20);
  const auto token = str(issued.at("status").at("token"));
  const auto as_sa = bearer(token);

  auto list_all = call(cluster.port(), "GET", "/api/v1/pods", "", as_sa);
  CHECK(list_all.status == 403);
  CHECK(list_all.body ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
        R"("pods is forbidden: User \"system:serviceaccount:team:sa\" cannot list resource )"
        R"(\"pods\" in API group \"\" at the cluster scope","reason":"Forbidden",)"
        R"("details":{"kind":"pods"},"code":403})");
  auto list_team = call(cluster.port(), "GET", "/api/v1/namespaces/team/pods", "", as_sa);
  CHECK(list_team.status == 403);
  CHECK(str(list_team.json().at("message")) ==
        "pods is forbidden: User \"" + kSa +
            R"(" cannot list resource "pods" in API group "" in the namespace "team")");
  auto watch = call(cluster.port(), "GET", "/api/v1/namespaces/team/pods?watch=true", "", as_sa);
  CHECK(str(watch.json().at("message")) ==
        "pods is forbidden: User \"" + kSa +
            R"(" cannot watch resource "pods" in API group "" in the namespace "team")");
  auto scale =
      call(cluster.port(), "GET", "/apis/apps/v1/namespaces/team/deployments/web/scale", "", as_sa);
  CHECK(scale.status == 403);
  CHECK(
      str(scale.json().at("message")) ==
      R"(deployments.apps "web" is forbidden: User ")" + kSa +
          R"(" cannot get resource "deployments/scale" in API group "apps" in the namespace "team")");
  CHECK(scale.json().at("details") ==
        json::parse(R"({"name":"web","group":"apps","kind":"deployments"})"));
  auto faults = call(cluster.port(), "PUT", "/sim/faults", "{}", as_sa);
  CHECK(str(faults.json().at("message")) ==
        "forbidden: User \"" + kSa + R"(" cannot put path "/sim/faults")");
  // Discovery, OpenAPI and /version are every authenticated user's (system:discovery).
  for (auto path : {"/api", "/api/v1", "/apis", "/apis/apps/v1", "/openapi/v3", "/version"})
    CHECK_MESSAGE(call(cluster.port(), "GET", path, "", as_sa).status == 200, path);

  cluster.create(
      "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles",
      role("Role", "pod-reader",
           R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}])"));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "read-pods", "Role", "pod-reader", kSaSubject));
  CHECK(call(cluster.port(), "GET", "/api/v1/namespaces/team/pods", "", as_sa).status == 200);
  CHECK(call(cluster.port(), "GET", "/api/v1/namespaces/team/pods/nope", "", as_sa).status == 404);
  CHECK(call(cluster.port(), "GET", "/api/v1/pods", "", as_sa).status == 403);
  CHECK(call(cluster.port(), "GET", "/api/v1/namespaces/default/pods", "", as_sa).status == 403);
  auto create =
      call(cluster.port(), "POST", "/api/v1/namespaces/team/pods",
           R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})", as_sa);
  CHECK(str(create.json().at("message")) ==
        "pods is forbidden: User \"" + kSa +
            R"(" cannot create resource "pods" in API group "" in the namespace "team")");
}

TEST_CASE("HTTP methods map to the API server's verbs in 403 messages") {
  Cluster cluster;
  const auto as_sa = bearer(cluster.token());
  struct Case {
    const char* method;
    const char* path;
    const char* expected;
  };
  const std::string in_team = R"( in API group "" in the namespace "team")";
  for (const auto& [method, path, expected] :
       {Case{"GET", "/api/v1/namespaces/team/configmaps/c",
             R"(configmaps "c" is forbidden: User "%" cannot get resource "configmaps")"},
        Case{"GET", "/api/v1/namespaces/team/configmaps",
             R"(configmaps is forbidden: User "%" cannot list resource "configmaps")"},
        Case{"GET", "/api/v1/watch/namespaces/team/configmaps",
             R"(configmaps is forbidden: User "%" cannot watch resource "configmaps")"},
        Case{"POST", "/api/v1/namespaces/team/configmaps",
             R"(configmaps is forbidden: User "%" cannot create resource "configmaps")"},
        Case{"PUT", "/api/v1/namespaces/team/configmaps/c",
             R"(configmaps "c" is forbidden: User "%" cannot update resource "configmaps")"},
        Case{"PATCH", "/api/v1/namespaces/team/configmaps/c",
             R"(configmaps "c" is forbidden: User "%" cannot patch resource "configmaps")"},
        Case{"DELETE", "/api/v1/namespaces/team/configmaps/c",
             R"(configmaps "c" is forbidden: User "%" cannot delete resource "configmaps")"},
        Case{"DELETE", "/api/v1/namespaces/team/configmaps",
             R"(configmaps is forbidden: User "%" cannot deletecollection resource "configmaps")"},
        Case{"PUT", "/api/v1/namespaces/team/pods/p/status",
             R"(pods "p" is forbidden: User "%" cannot update resource "pods/status")"}}) {
    std::string want = expected;
    want.replace(want.find('%'), 1, kSa);
    auto reply = call(cluster.port(), method, path, "{}", as_sa);
    CHECK_MESSAGE(reply.status == 403, method, " ", path);
    CHECK(str(reply.json().at("message")) == want + in_team);
  }
  // A namespace is named by itself.
  auto ns = call(cluster.port(), "GET", "/api/v1/namespaces/team", "", as_sa);
  CHECK(str(ns.json().at("message")) ==
        R"(namespaces "team" is forbidden: User ")" + kSa +
            R"(" cannot get resource "namespaces" in API group "" in the namespace "team")");
}

TEST_CASE("RBAC rules: wildcards, subresources, resourceNames, groups, ClusterRoles, paths") {
  Cluster cluster;
  const auto token = cluster.token();
  auto allowed = [&](const std::string& attributes) {
    return ssar(cluster, token, attributes).at("status").at("allowed").as_bool();
  };
  const std::string scale_web =
      R"({"resourceAttributes":{"namespace":"team","verb":"update","group":"apps",)"
      R"("resource":"deployments","subresource":"scale","name":"web"}})";
  CHECK_FALSE(allowed(scale_web));
  cluster.create(
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      role(
          "ClusterRole", "scaler",
          R"([{"apiGroups":["apps"],"resources":["*/scale"],"verbs":["update","patch"],)"
          R"("resourceNames":["web"]},{"nonResourceURLs":["/metrics","/logs/*"],"verbs":["get"]}])"));
  // A RoleBinding to a ClusterRole grants it in the binding's namespace only; the group
  // system:serviceaccounts:team holds the ServiceAccount.
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "scalers", "ClusterRole", "scaler",
                         R"([{"kind":"Group","name":"system:serviceaccounts:team"}])"));
  auto review = ssar(cluster, token, scale_web);
  CHECK(review.at("status").at("allowed") == true);
  CHECK(
      review.at("status").at("reason") ==
      R"(RBAC: allowed by RoleBinding "scalers/team" of ClusterRole "scaler" to Group "system:serviceaccounts:team")");
  CHECK(review.at("spec").at("resourceAttributes").at("name") == "web");
  CHECK_FALSE(allowed(R"({"resourceAttributes":{"namespace":"team","verb":"update","group":"apps",)"
                      R"("resource":"deployments","subresource":"scale","name":"api"}})"));
  CHECK_FALSE(allowed(R"({"resourceAttributes":{"namespace":"team","verb":"update","group":"apps",)"
                      R"("resource":"deployments","name":"web"}})"));
  CHECK_FALSE(
      allowed(R"({"resourceAttributes":{"namespace":"other","verb":"update","group":"apps",)"
              R"("resource":"deployments","subresource":"scale","name":"web"}})"));
  // Non-resource rules only count in cluster-wide bindings.
  CHECK_FALSE(allowed(R"({"nonResourceAttributes":{"path":"/metrics","verb":"get"}})"));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                 binding("ClusterRoleBinding", "scalers", "ClusterRole", "scaler", kSaSubject));
  CHECK(allowed(R"({"nonResourceAttributes":{"path":"/metrics","verb":"get"}})"));
  CHECK(allowed(R"({"nonResourceAttributes":{"path":"/logs/kubelet.log","verb":"get"}})"));
  CHECK_FALSE(allowed(R"({"nonResourceAttributes":{"path":"/metricsz","verb":"get"}})"));
  CHECK(allowed(R"({"resourceAttributes":{"namespace":"other","verb":"patch","group":"apps",)"
                R"("resource":"statefulsets","subresource":"scale","name":"web"}})"));

  // Through HTTP: a watch naming one object with a field selector is a watch of that name.
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles",
                 role("Role", "one-cm",
                      R"([{"apiGroups":[""],"resources":["configmaps"],"verbs":["*"],)"
                      R"("resourceNames":["settings"]}])"));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "one-cm", "Role", "one-cm", kSaSubject));
  const auto as_sa = bearer(token);
  CHECK(call(cluster.port(), "GET",
             "/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dsettings", "", as_sa)
            .status == 200);
  CHECK(call(cluster.port(), "GET", "/api/v1/namespaces/team/configmaps", "", as_sa).status == 403);

  // A binding to a role that does not exist grants nothing and says so.
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "dangling", "Role", "missing", kSaSubject));
  auto denied = call(cluster.port(), "GET", "/api/v1/namespaces/team/secrets", "", as_sa);
  CHECK(str(denied.json().at("message")) ==
        "secrets is forbidden: User \"" + kSa +
            R"(" cannot list resource "secrets" in API group "" in the namespace "team": )"
            R"(RBAC: role.rbac.authorization.k8s.io "missing" not found)");
}

TEST_CASE("SelfSubjectAccessReview: admin, protobuf bodies, validation; SelfSubjectReview") {
  Cluster cluster;
  auto admin_review = ssar(cluster, cluster.server.admin_token(),
                           R"({"resourceAttributes":{"verb":"delete","resource":"nodes"}})");
  CHECK(admin_review.at("status") == json::parse(R"({"allowed":true})"));

  const auto token = cluster.token();
  // What `kubectl auth can-i list pods -n team` sends: protobuf.
  const std::string attributes = field(1, "team") + field(2, "list") + field(5, "pods");
  const std::string review = field(2, field(1, attributes));
  const std::string type_meta =
      field(1, "authorization.k8s.io/v1") + field(2, "SelfSubjectAccessReview");
  const std::string body = std::string("k8s\0", 4) + field(1, type_meta) + field(2, review);
  Headers headers = bearer(token);
  headers.emplace_back("Content-Type", "application/vnd.kubernetes.protobuf");
  auto reply = call(cluster.port(), "POST",
                    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body, headers);
  REQUIRE_MESSAGE(reply.status == 201, reply.body);
  CHECK(reply.json().at("status") == json::parse(R"({"allowed":false})"));
  CHECK(reply.json().at("spec").at("resourceAttributes").at("resource") == "pods");

  auto invalid =
      call(cluster.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
           R"({"spec":{}})", bearer(token));
  CHECK(invalid.status == 422);
  auto garbage = call(cluster.port(), "POST",
                      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "{", bearer(token));
  CHECK(garbage.status == 400);

  auto whoami = call(cluster.port(), "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                     R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})",
                     bearer(token));
  REQUIRE(whoami.status == 201);
  const auto info = whoami.json().at("status").at("userInfo");
  CHECK(str(info.at("username")) == kSa);
  CHECK(info.at("groups") == json::array{"system:serviceaccounts", "system:serviceaccounts:team",
                                         "system:authenticated"});
  CHECK(str(info.at("uid")).size() == 36);
}

TEST_CASE("SelfSubjectRulesReview lists the rules granted in a namespace (JSON and protobuf)") {
  Cluster cluster;
  const auto token = cluster.token();
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles",
                 role("Role", "pod-reader",
                      R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}])"));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "read-pods", "Role", "pod-reader", kSaSubject));
  cluster.create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 binding("RoleBinding", "dangling", "ClusterRole", "missing", kSaSubject));
  // What `kubectl auth can-i --list -n team` sends.
  const std::string type_meta =
      field(1, "authorization.k8s.io/v1") + field(2, "SelfSubjectRulesReview");
  const std::string body =
      std::string("k8s\0", 4) + field(1, type_meta) + field(2, field(2, field(1, "team")));
  Headers headers = bearer(token);
  headers.emplace_back("Content-Type", "application/vnd.kubernetes.protobuf");
  auto reply = call(cluster.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                    body, headers);
  REQUIRE_MESSAGE(reply.status == 201, reply.body);
  const auto review = reply.json();
  CHECK(review.at("spec") == json::parse(R"({"namespace":"team"})"));
  const auto& status = review.at("status");
  CHECK(status.at("incomplete") == true);
  CHECK(status.at("evaluationError") ==
        R"(clusterrole.rbac.authorization.k8s.io "missing" not found)");
  const auto& rules = status.at("resourceRules").as_array();
  CHECK(
      std::find(rules.begin(), rules.end(),
                json::parse(R"({"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]})")) !=
      rules.end());
  CHECK(std::find(rules.begin(), rules.end(),
                  json::parse(
                      R"({"verbs":["create"],"apiGroups":["authorization.k8s.io"],)"
                      R"("resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]})")) !=
        rules.end());
  CHECK(status.at("nonResourceRules").at(0).at("nonResourceURLs").at(0) == "/api");

  // In another namespace only the cluster-wide rules; the administrator has everything.
  auto elsewhere =
      call(cluster.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
           R"({"spec":{"namespace":"default"}})", bearer(token))
          .json();
  CHECK(elsewhere.at("status").at("incomplete") == false);
  for (const auto& rule : elsewhere.at("status").at("resourceRules").as_array())
    CHECK(rule.at("resources") != json::array{"pods"});
  auto admin = call(cluster.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                    R"({"spec":{"namespace":"default"}})", cluster.admin)
                   .json();
  CHECK(admin.at("status").at("resourceRules").at(0) ==
        json::parse(R"({"verbs":["*"],"apiGroups":["*"],"resources":["*"]})"));
}

TEST_CASE("impersonation: the administrator acts as a ServiceAccount; others need the verb") {
  Cluster cluster;
  Headers as_sa = cluster.admin;
  as_sa.emplace_back("Impersonate-User", kSa);
  auto denied = call(cluster.port(), "GET", "/api/v1/namespaces/team/pods", "", as_sa);
  CHECK(denied.status == 403);
  CHECK(str(denied.json().at("message")) ==
        "pods is forbidden: User \"" + kSa +
            R"(" cannot list resource "pods" in API group "" in the namespace "team")");
  auto whoami =
      call(cluster.port(), "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
           R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"})", as_sa)
          .json();
  CHECK(
      whoami.at("status").at("userInfo").at("groups") ==
      json::array{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"});

  Headers as_alice = cluster.admin;
  as_alice.emplace_back("Impersonate-User", "alice");
  as_alice.emplace_back("Impersonate-Group", "devs");
  whoami = call(cluster.port(), "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                R"({"kind":"SelfSubjectReview"})", as_alice)
               .json();
  CHECK(whoami.at("status").at("userInfo") ==
        json::parse(R"({"username":"alice","groups":["devs","system:authenticated"]})"));

  Headers groups_only = cluster.admin;
  groups_only.emplace_back("Impersonate-Group", "devs");
  CHECK(call(cluster.port(), "GET", "/api", "", groups_only).status == 400);

  // A ServiceAccount may not impersonate without a rule for it.
  Headers sa_as_alice = bearer(cluster.token());
  sa_as_alice.emplace_back("Impersonate-User", "alice");
  auto refused = call(cluster.port(), "GET", "/api", "", sa_as_alice);
  CHECK(refused.status == 403);
  CHECK(str(refused.json().at("message")) ==
        "users \"alice\" is forbidden: User \"" + kSa +
            R"(" cannot impersonate resource "users" in API group "" at the cluster scope)");
  cluster.create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                 role("ClusterRole", "impersonator",
                      R"([{"apiGroups":[""],"resources":["users"],"verbs":["impersonate"],)"
                      R"("resourceNames":["alice"]}])"));
  cluster.create(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      binding("ClusterRoleBinding", "impersonator", "ClusterRole", "impersonator", kSaSubject));
  CHECK(call(cluster.port(), "GET", "/api", "", sa_as_alice).status == 200);
  sa_as_alice.emplace_back("Impersonate-Group", "system:masters");
  auto escalation = call(cluster.port(), "GET", "/api", "", sa_as_alice);
  CHECK(str(escalation.json().at("message")) ==
        "groups \"system:masters\" is forbidden: User \"" + kSa +
            R"(" cannot impersonate resource "groups" in API group "" at the cluster scope)");
}

TEST_CASE("TokenRequest errors, audiences, and tokens of a deleted ServiceAccount") {
  Cluster cluster;
  auto missing = call(cluster.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/nope/token",
                      R"({"spec":{}})", cluster.admin);
  CHECK(missing.status == 404);
  CHECK(str(missing.json().at("message")) == R"(serviceaccounts "nope" not found)");
  auto short_lived =
      call(cluster.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token",
           R"({"spec":{"expirationSeconds":10}})", cluster.admin);
  CHECK(short_lived.status == 422);
  CHECK(str(short_lived.json().at("message")) ==
        R"(TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: )"
        R"(Invalid value: 10: may not specify a duration less than 10 minutes)");

  // A token for another audience is not for the API server.
  const auto foreign = cluster.token(R"({"spec":{"audiences":["vault"]}})");
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(foreign)).status == 401);

  // Minting needs create on serviceaccounts/token.
  const auto token = cluster.token();
  auto self_mint = call(cluster.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token",
                        R"({"spec":{}})", bearer(token));
  CHECK(
      str(self_mint.json().at("message")) ==
      R"(serviceaccounts "sa" is forbidden: User ")" + kSa +
          R"(" cannot create resource "serviceaccounts/token" in API group "" in the namespace "team")");

  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 200);
  REQUIRE(call(cluster.port(), "DELETE", "/api/v1/namespaces/team/serviceaccounts/sa", "",
               cluster.admin)
              .status == 200);
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 401);
  // A new ServiceAccount of the same name has another uid: the old token stays invalid.
  cluster.create("/api/v1/namespaces/team/serviceaccounts", R"({"metadata":{"name":"sa"}})");
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 401);
}

TEST_CASE("bound tokens: the object must exist, a Pod must run as the ServiceAccount") {
  Cluster cluster;
  cluster.create("/api/v1/namespaces/team/secrets", R"({"metadata":{"name":"s"}})");
  cluster.create("/api/v1/namespaces/team/pods",
                 R"({"metadata":{"name":"other"},"spec":{"serviceAccountName":"someone",)"
                 R"("containers":[{"name":"c","image":"i"}]}})");
  auto request = [&](const std::string& ref) {
    return call(cluster.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token",
                R"({"spec":{"boundObjectRef":)" + ref + "}}", cluster.admin);
  };
  auto bound = request(R"({"kind":"Secret","apiVersion":"v1","name":"s"})");
  REQUIRE(bound.status == 201);
  const auto secret_uid =
      str(call(cluster.port(), "GET", "/api/v1/namespaces/team/secrets/s", "", cluster.admin)
              .json()
              .at("metadata")
              .at("uid"));
  CHECK(str(bound.json().at("spec").at("boundObjectRef").at("uid")) == secret_uid);
  const auto token = str(bound.json().at("status").at("token"));
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 200);
  REQUIRE(call(cluster.port(), "DELETE", "/api/v1/namespaces/team/secrets/s", "", cluster.admin)
              .status == 200);
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 401);

  auto mismatch = request(R"({"kind":"Pod","apiVersion":"v1","name":"other"})");
  CHECK(mismatch.status == 400);
  CHECK(
      str(mismatch.json().at("message")) ==
      R"(cannot bind token for serviceaccount "sa" to pod running with different serviceaccount name.)");
  auto missing = request(R"({"kind":"Pod","apiVersion":"v1","name":"nope"})");
  CHECK(missing.status == 404);
  CHECK(str(missing.json().at("message")) == R"(pods "nope" not found)");
  auto kind = request(R"({"kind":"ConfigMap","apiVersion":"v1","name":"c"})");
  CHECK(str(kind.json().at("message")) ==
        "cannot bind token to object of type /v1, Kind=ConfigMap");
  cluster.create("/api/v1/namespaces/team/secrets", R"({"metadata":{"name":"s2"}})");
  auto stale = request(R"({"kind":"Secret","apiVersion":"v1","name":"s2","uid":"old"})");
  CHECK(stale.status == 409);
  CHECK(str(stale.json().at("message")) ==
        R"(Operation cannot be fulfilled on Secret "s2": the UID in the bound object reference )"
        R"((old) does not match the UID in record. The object might have been deleted and then )"
        R"(recreated)");
}

TEST_CASE("forged ServiceAccount tokens are refused") {
  Cluster cluster;
  const auto token = cluster.token();
  CHECK(call(cluster.port(), "GET", "/api", "", bearer(token)).status == 200);
  const auto first_dot = token.find('.');
  const auto last_dot = token.rfind('.');
  // The same claims for another ServiceAccount, with the original signature.
  std::string payload = token.substr(first_dot + 1, last_dot - first_dot - 1);
  payload[payload.size() / 2] = payload[payload.size() / 2] == 'A' ? 'B' : 'A';
  const std::string tampered = token.substr(0, first_dot + 1) + payload + token.substr(last_dot);
  // An unsigned token (alg none) and a token of another kube-sim with the same claims.
  const std::string unsigned_token = token.substr(0, last_dot + 1);
  rg::sim::Server other(secured(false));
  REQUIRE(call(other.port(), "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})",
               bearer(other.admin_token()))
              .status == 201);
  REQUIRE(call(other.port(), "POST", "/api/v1/namespaces/team/serviceaccounts",
               R"({"metadata":{"name":"sa"}})", bearer(other.admin_token()))
              .status == 201);
  const auto foreign =
      str(call(other.port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token",
               R"({"spec":{}})", bearer(other.admin_token()))
              .json()
              .at("status")
              .at("token"));
  for (const auto& forged : {tampered, unsigned_token, foreign, token + "x", std::string("a.b.c"),
                             std::string(".."), other.admin_token()})
    CHECK_MESSAGE(call(cluster.port(), "GET", "/api", "", bearer(forged)).status == 401, forged);
}

TEST_CASE("the default in-process server has no authentication but answers the auth APIs") {
  rg::sim::Server server;
  CHECK(server.address().starts_with("http://"));
  CHECK(server.ca_pem().empty());
  CHECK(call(server.port(), "GET", "/api/v1/pods").status == 200);
  CHECK(call(server.port(), "POST", "/api/v1/namespaces/default/serviceaccounts",
             R"({"metadata":{"name":"sa"}})")
            .status == 201);
  auto token = call(server.port(), "POST", "/api/v1/namespaces/default/serviceaccounts/sa/token",
                    R"({"spec":{}})");
  CHECK(token.status == 201);
  auto review =
      call(server.port(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
           R"({"spec":{"resourceAttributes":{"verb":"list","resource":"pods"}}})");
  CHECK(review.json().at("status").at("allowed") == true);
  // No bootstrap policy objects without RBAC.
  auto roles = call(server.port(), "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles");
  CHECK(roles.json().at("items").as_array().empty());
}

TEST_CASE("discovery lists serviceaccounts/token and the self reviews with create") {
  rg::sim::Server server;
  auto core = call(server.port(), "GET", "/api/v1").json();
  bool token = false;
  for (const auto& resource : core.at("resources").as_array())
    if (resource.at("name") == "serviceaccounts/token") {
      token = true;
      CHECK(resource.at("verbs") == json::array{"create"});
      CHECK(resource.at("kind") == "TokenRequest");
      CHECK(resource.at("group") == "authentication.k8s.io");
    }
  CHECK(token);
  auto authorization = call(server.port(), "GET", "/apis/authorization.k8s.io/v1").json();
  REQUIRE(authorization.at("resources").as_array().size() == 3);
  CHECK(authorization.at("resources").at(0).at("name") == "selfsubjectaccessreviews");
  CHECK(authorization.at("resources").at(1).at("name") == "selfsubjectrulesreviews");
  CHECK(authorization.at("resources").at(2).at("name") == "subjectaccessreviews");
  for (const auto& resource : authorization.at("resources").as_array()) {
    CHECK(resource.at("verbs") == json::array{"create"});
    CHECK(resource.at("namespaced") == false);
  }
}

TEST_CASE("RestConfig helpers: the administrator and a least-privilege ServiceAccount") {
  rg::sim::Server server(secured(true));
  boost::asio::io_context io;
  rg::client::RestClient admin(server.rest_config());
  const rg::client::ResourceRef namespaces{"", "v1", "namespaces", false, "", ""};
  auto listed = run(io, admin.list(namespaces, rg::client::ListOptions{}));
  CHECK(listed.at("items").as_array().size() == 4);

  rg::client::RestClient operator_sa(server.service_account_config("default", "replica-guard"));
  CHECK(operator_sa.config().namespace_ == "default");
  const rg::client::ResourceRef pods{"", "v1", "pods", true, "default", ""};
  try {
    run(io, operator_sa.list(pods, rg::client::ListOptions{}));
    FAIL("listing pods without a binding must be forbidden");
  } catch (const rg::client::ApiError& error) {
    CHECK(error.code() == 403);
    CHECK(error.message() ==
          R"(pods is forbidden: User "system:serviceaccount:default:replica-guard" cannot list )"
          R"(resource "pods" in API group "" in the namespace "default")");
  }
  CHECK_THROWS_AS(server.create_token("default", "nobody"), rg::sim::ApiError);
}
