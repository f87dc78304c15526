// A kube-sim with authentication and RBAC for the auth tests: the namespace "team", its
// ServiceAccount "sa", tokens for it, and Role/Binding bodies.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace rg::sim::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

inline rg::sim::ServerOptions secured(bool tls) {
  rg::sim::ServerOptions options;
  options.tls.enabled = tls;
  options.auth.enabled = true;
  return options;
}

inline Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

/// A plain-HTTP server with authentication and RBAC, the namespace "team" and its
/// ServiceAccount "sa".
struct Cluster {
  rg::sim::Server server{secured(false)};
  Headers admin = bearer(server.admin_token());

  Cluster() {
    REQUIRE(call(port(), "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})", admin)
                .status == 201);
    REQUIRE(call(port(), "POST", "/api/v1/namespaces/team/serviceaccounts",
                 R"({"metadata":{"name":"sa"}})", admin)
                .status == 201);
  }
  unsigned short port() const { return server.port(); }

  std::string token(const std::string& body = R"({"spec":{}})") {
    auto reply =
        call(port(), "POST", "/api/v1/namespaces/team/serviceaccounts/sa/token", body, admin);
    REQUIRE(reply.status == 201);
    return str(reply.json().at("status").at("token"));
  }

  void create(const std::string& path, const std::string& body) {
    auto reply = call(port(), "POST", path, body, admin);
    REQUIRE_MESSAGE(reply.status == 201, reply.body);
  }
};

inline const std::string kSa = "system:serviceaccount:team:sa";

inline std::string role(const std::string& kind, const std::string& name,
                        const std::string& rules) {
  return R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":")" + kind +
         R"(","metadata":{"name":")" + name + R"("},"rules":)" + rules + "}";
}

inline std::string binding(const std::string& kind, const std::string& name,
                           const std::string& role_kind, const std::string& role_name,
                           const std::string& subjects) {
  return R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":")" + kind +
         R"(","metadata":{"name":")" + name +
         R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":")" + role_kind +
         R"(","name":")" + role_name + R"("},"subjects":)" + subjects + "}";
}

inline const std::string kSaSubject =
    R"([{"kind":"ServiceAccount","name":"sa","namespace":"team"}])";

}  // namespace rg::sim::test
