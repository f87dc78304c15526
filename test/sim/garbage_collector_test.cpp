// kube-sim's garbage collection on DELETE, as pkg/controller/garbagecollector does it: any kind
// may own any other; a dependent goes when none of its owners exists any more, and otherwise
// only loses the reference to the one that went; a namespaced owner's dependents are in its own
// namespace, a cluster-scoped owner's anywhere.
#include <doctest/doctest.h>

#include <string>

#include "sim/server.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kConfigMaps;
using rg::sim::test::str;

namespace {

// An ownerReferences entry for `owner` (a created object as the server answered it).
std::string reference(const json::value& owner) {
  return R"({"apiVersion":")" + str(owner.at("apiVersion")) + R"(","kind":")" +
         str(owner.at("kind")) + R"(","name":")" + str(owner.at("metadata").at("name")) +
         R"(","uid":")" + str(owner.at("metadata").at("uid")) + R"("})";
}

json::value create(unsigned short port, const std::string& collection, const std::string& body) {
  auto reply = call(port, "POST", collection, body);
  REQUIRE(reply.status == 201);
  return reply.json();
}

// A ConfigMap `name` in `collection` owned by `references` (a JSON array's items).
json::value dependent(unsigned short port, const std::string& collection, const std::string& name,
                      const std::string& references) {
  return create(
      port, collection,
      R"({"metadata":{"name":")" + name + R"(","ownerReferences":[)" + references + "]}}");
}

}  // namespace

TEST_CASE("garbage collection: any kind owns; a dependent with another live owner stays") {
  rg::sim::Server server;
  auto port = server.port();
  // Owners of kinds no built-in controller owns with: a ConfigMap and a Secret.
  auto map_owner = create(port, kConfigMaps, R"({"metadata":{"name":"owner"}})");
  auto secret_owner =
      create(port, "/api/v1/namespaces/default/secrets", R"({"metadata":{"name":"keeper"}})");
  dependent(port, kConfigMaps, "only-map", reference(map_owner));
  dependent(port, kConfigMaps, "both", reference(map_owner) + "," + reference(secret_owner));

  REQUIRE(call(port, "DELETE", kConfigMaps + "/owner").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/only-map").status == 404);
  auto both = call(port, "GET", kConfigMaps + "/both");
  REQUIRE(both.status == 200);
  const auto kept = both.json();
  const auto& refs = kept.at("metadata").at("ownerReferences").as_array();
  REQUIRE(refs.size() == 1);
  CHECK(refs[0].at("uid") == secret_owner.at("metadata").at("uid"));

  REQUIRE(call(port, "DELETE", "/api/v1/namespaces/default/secrets/keeper").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/both").status == 404);
}

TEST_CASE("garbage collection: a reference to an owner that is not there does not keep one") {
  rg::sim::Server server;
  auto port = server.port();
  auto owner = create(port, kConfigMaps, R"({"metadata":{"name":"owner"}})");
  // A second reference whose name exists with another uid, and one to a kind nobody serves.
  auto other = create(port, kConfigMaps, R"({"metadata":{"name":"other"}})");
  const std::string stale = R"({"apiVersion":"v1","kind":"ConfigMap","name":"other","uid":"x-1"})";
  const std::string unknown = R"({"apiVersion":"example.com/v1","kind":"Nope","name":"n","uid":")" +
                              str(other.at("metadata").at("uid")) + R"("})";
  dependent(port, kConfigMaps, "d", reference(owner) + "," + stale + "," + unknown);
  REQUIRE(call(port, "DELETE", kConfigMaps + "/owner").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/d").status == 404);
  CHECK(call(port, "GET", kConfigMaps + "/other").status == 200);
}

TEST_CASE("garbage collection: namespaced owners reach their namespace, cluster-scoped ones all") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})").status ==
          201);
  const std::string team = "/api/v1/namespaces/team/configmaps";
  auto owner = create(port, kConfigMaps, R"({"metadata":{"name":"owner"}})");
  // The same uid named from another namespace: that namespace has no such owner.
  dependent(port, team, "elsewhere", reference(owner));
  dependent(port, kConfigMaps, "here", reference(owner));
  REQUIRE(call(port, "DELETE", kConfigMaps + "/owner").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/here").status == 404);
  CHECK(call(port, "GET", team + "/elsewhere").status == 200);

  auto node = create(port, "/api/v1/nodes", R"({"metadata":{"name":"n1"}})");
  dependent(port, team, "on-node", reference(node));
  dependent(port, kConfigMaps, "on-node", reference(node));
  REQUIRE(call(port, "DELETE", "/api/v1/nodes/n1").status == 200);
  CHECK(call(port, "GET", team + "/on-node").status == 404);
  CHECK(call(port, "GET", kConfigMaps + "/on-node").status == 404);
}

TEST_CASE("garbage collection: a dependent's own dependents go too; Orphan keeps them all") {
  rg::sim::Server server;
  auto port = server.port();
  auto root = create(port, kConfigMaps, R"({"metadata":{"name":"root"}})");
  auto middle = dependent(port, kConfigMaps, "middle", reference(root));
  dependent(port, kConfigMaps, "leaf", reference(middle));
  // An ownerReference added by a later write is followed; one a write removed is not.
  const auto merge_patch = [&](const std::string& name, const std::string& references) {
    return call(port, "PATCH", kConfigMaps + "/" + name,
                R"({"metadata":{"ownerReferences":)" + references + "}}",
                {{"Content-Type", "application/merge-patch+json"}});
  };
  create(port, kConfigMaps, R"({"metadata":{"name":"later"}})");
  REQUIRE(merge_patch("later", "[" + reference(root) + "]").status == 200);
  dependent(port, kConfigMaps, "released", reference(root));
  REQUIRE(merge_patch("released", "null").status == 200);
  REQUIRE(call(port, "DELETE", kConfigMaps + "/root").status == 200);
  for (std::string name : {"middle", "leaf", "later"})
    CHECK_MESSAGE(call(port, "GET", kConfigMaps + "/" + name).status == 404, name);
  CHECK(call(port, "GET", kConfigMaps + "/released").status == 200);

  auto kept = create(port, kConfigMaps, R"({"metadata":{"name":"kept"}})");
  dependent(port, kConfigMaps, "stays", reference(kept));
  REQUIRE(call(port, "DELETE", kConfigMaps + "/kept", R"({"propagationPolicy":"Orphan"})").status ==
          200);
  auto stays = call(port, "GET", kConfigMaps + "/stays");
  REQUIRE(stays.status == 200);
  CHECK_FALSE(stays.json().at("metadata").as_object().contains("ownerReferences"));
}

TEST_CASE("garbage collection: an owner held by a finalizer collects once the finalizer goes") {
  rg::sim::Server server;
  auto port = server.port();
  auto owner = create(port, kConfigMaps,
                      R"({"metadata":{"name":"held","finalizers":["example.com/cleanup"]}})");
  dependent(port, kConfigMaps, "d", reference(owner));
  REQUIRE(call(port, "DELETE", kConfigMaps + "/held").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/d").status == 200);  // the owner still exists
  REQUIRE(call(port, "PATCH", kConfigMaps + "/held", R"({"metadata":{"finalizers":null}})",
               {{"Content-Type", "application/merge-patch+json"}})
              .status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/held").status == 404);
  CHECK(call(port, "GET", kConfigMaps + "/d").status == 404);
}
