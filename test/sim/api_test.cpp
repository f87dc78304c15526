// kube-sim over HTTP: CRUD, Status errors, list pagination and resourceVersion semantics.
#include <doctest/doctest.h>

#include "sim/list_options.hpp"
#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::rv_of;
using rg::sim::test::str;

namespace {

std::string pod(const std::string& name, const std::string& labels = R"({"app":"web"})") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","labels":)" +
         labels + R"(},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
}

std::string deployment(const std::string& name) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":2,"selector":{"matchLabels":{"app":")" + name +
         R"("}},"template":{"metadata":{"labels":{"app":")" + name +
         R"("}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}})";
}

}  // namespace

TEST_CASE("create, get and list assign metadata and keep list items without kind") {
  rg::sim::Server server;
  auto port = server.port();
  auto created = call(port, "POST", "/api/v1/namespaces/default/pods", pod("a"));
  REQUIRE(created.status == 201);
  auto object = created.json();
  CHECK(object.at("kind") == "Pod");
  CHECK(object.at("metadata").at("uid").as_string().size() == 36);
  CHECK(object.at("metadata").at("creationTimestamp").as_string().size() == 20);
  CHECK(object.at("metadata").at("namespace") == "default");
  CHECK(object.at("status").at("phase") == "Pending");

  auto second = call(port, "POST", "/api/v1/namespaces/default/pods", pod("b")).json();
  CHECK(std::stoull(rv_of(second)) > std::stoull(rv_of(object)));

  auto got = call(port, "GET", "/api/v1/namespaces/default/pods/a");
  CHECK(got.status == 200);
  CHECK(got.json() == object);

  auto list = call(port, "GET", "/api/v1/namespaces/default/pods").json();
  CHECK(list.at("kind") == "PodList");
  CHECK(list.at("apiVersion") == "v1");
  REQUIRE(list.at("items").as_array().size() == 2);
  CHECK(!list.at("items").at(0).as_object().contains("kind"));
  CHECK(str(list.at("metadata").at("resourceVersion")) == rv_of(second));

  auto generated = call(port, "POST", "/api/v1/namespaces/default/configmaps",
                        R"({"metadata":{"generateName":"cfg-"},"data":{"k":"v"}})");
  REQUIRE(generated.status == 201);
  auto name = std::string(generated.json().at("metadata").at("name").as_string());
  CHECK(name.starts_with("cfg-"));
  CHECK(name.size() == 9);
}

TEST_CASE("errors are Status objects with the API server's messages") {
  rg::sim::Server server;
  auto port = server.port();
  auto missing = call(port, "GET", "/apis/apps/v1/namespaces/default/deployments/web");
  CHECK(missing.status == 404);
  CHECK(
      missing.json() ==
      json::parse(
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404})"));

  REQUIRE(call(port, "POST", "/api/v1/namespaces/default/pods", pod("x")).status == 201);
  auto again = call(port, "POST", "/api/v1/namespaces/default/pods", pod("x"));
  CHECK(again.status == 409);
  CHECK(again.json().at("reason") == "AlreadyExists");
  CHECK(again.json().at("message") == "pods \"x\" already exists");

  auto unnamed = call(port, "POST", "/api/v1/namespaces/default/configmaps", R"({"data":{}})");
  CHECK(unnamed.status == 422);
  CHECK(
      unnamed.json().at("message") ==
      "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required");

  auto no_ns = call(port, "POST", "/api/v1/namespaces/nowhere/pods", pod("y"));
  CHECK(no_ns.status == 404);
  CHECK(no_ns.json().at("message") == "namespaces \"nowhere\" not found");

  auto cbor = call(port, "POST", "/api/v1/namespaces/default/pods", "\xa0",
                   {{"Content-Type", "application/cbor"}});
  CHECK(cbor.status == 415);
  CHECK(cbor.json().at("reason") == "UnsupportedMediaType");

  auto bad_selector = call(port, "GET", "/api/v1/pods?labelSelector=a%20in%20(");
  CHECK(bad_selector.status == 400);
  auto bad_field = call(port, "GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx");
  CHECK(bad_field.status == 400);
  CHECK(bad_field.json().at("message") == "field label not supported: spec.foo");

  // A patch is decoded only when applied to the object (apiserver's applyPatchToCurrentObject):
  // a missing object is a 404 whatever the body holds; an existing one, a 400 for a bad body.
  for (const std::string path :
       {"/api/v1/namespaces/default/pods/nobody", "/api/v1/namespaces/default/pods/x"}) {
    auto bad_patch = call(port, "PATCH", path, "{not json: [",
                          {{"Content-Type", "application/merge-patch+json"}});
    CHECK(bad_patch.status == (path.ends_with("/x") ? 400 : 404));
  }

  auto not_allowed = call(port, "POST", "/api/v1/namespaces/default/pods/x/status", pod("x"));
  CHECK(not_allowed.status == 405);
  CHECK(call(port, "GET", "/api/v1/nosuchthings").status == 404);

  auto too_big = call(port, "POST", "/api/v1/namespaces/default/configmaps",
                      std::string(4 * 1024 * 1024, ' '));
  CHECK(too_big.status == 413);
  CHECK(too_big.json().at("reason") == "RequestEntityTooLarge");
  // apiserver's limitedReadBody: NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit)).
  CHECK(too_big.json().at("message") == "Request entity too large: limit is 3145728");
  CHECK(too_big.json().at("code") == 413);
}

TEST_CASE("update is optimistic and bumps generation only on spec changes") {
  rg::sim::Server server;
  auto port = server.port();
  auto created =
      call(port, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web")).json();
  CHECK(created.at("metadata").at("generation") == 1);
  CHECK(created.at("spec").at("strategy").at("rollingUpdate").at("maxSurge") == "25%");

  auto changed = created;
  changed.at("spec").at("replicas") = 5;
  auto updated = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                      json::serialize(changed));
  REQUIRE(updated.status == 200);
  CHECK(updated.json().at("metadata").at("generation") == 2);

  auto stale = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                    json::serialize(changed));
  CHECK(stale.status == 409);
  CHECK(stale.json().at("message") ==
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; "
        "please apply your changes to the latest version and try again");

  // A label change is no spec change; an unchanged PUT is a no-op keeping the resourceVersion.
  auto current = updated.json();
  current.at("metadata").as_object()["labels"] = json::object{{"tier", "front"}};
  auto relabeled = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                        json::serialize(current))
                       .json();
  CHECK(relabeled.at("metadata").at("generation") == 2);
  auto same = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                   json::serialize(relabeled))
                  .json();
  CHECK(rv_of(same) == rv_of(relabeled));

  // Status goes through /status only.
  auto with_status = relabeled;
  with_status.as_object()["status"] = json::object{{"replicas", 5}};
  auto ignored = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                      json::serialize(with_status))
                     .json();
  CHECK(ignored.at("status").as_object().empty());
  auto status = call(port, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/status",
                     json::serialize(with_status));
  REQUIRE(status.status == 200);
  CHECK(status.json().at("status").at("replicas") == 5);
}

TEST_CASE("list pagination uses continue tokens over a consistent snapshot") {
  rg::sim::Server server;
  auto port = server.port();
  for (int i = 0; i < 5; ++i)
    REQUIRE(call(port, "POST", "/api/v1/namespaces/default/configmaps",
                 R"({"metadata":{"name":"cm)" + std::to_string(i) + R"("}})")
                .status == 201);
  auto first = call(port, "GET", "/api/v1/namespaces/default/configmaps?limit=2").json();
  CHECK(first.at("items").as_array().size() == 2);
  CHECK(first.at("metadata").at("remainingItemCount") == 3);
  std::string token(first.at("metadata").at("continue").as_string());
  const std::string list_rv = rv_of(first);

  // A change after the first page does not show up in later pages.
  REQUIRE(call(port, "DELETE", "/api/v1/namespaces/default/configmaps/cm3").status == 200);
  auto second =
      call(port, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" + token).json();
  CHECK(rv_of(second) == list_rv);
  CHECK(second.at("items").at(0).at("metadata").at("name") == "cm2");
  CHECK(second.at("items").at(1).at("metadata").at("name") == "cm3");
  token = std::string(second.at("metadata").at("continue").as_string());
  auto third =
      call(port, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" + token).json();
  CHECK(third.at("items").as_array().size() == 1);
  CHECK(!third.at("metadata").as_object().contains("continue"));

  // After compaction the token is too old.
  server.faults().compact();
  auto expired =
      call(port, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" + token);
  CHECK(expired.status == 410);
  CHECK(expired.json().at("reason") == "Expired");
  CHECK(std::string(expired.json().at("message").as_string())
            .starts_with("The provided continue parameter is too old"));

  // Its Status offers a token that resumes at the latest state: inconsistent, as documented.
  std::string latest_token(expired.json().at("metadata").at("continue").as_string());
  REQUIRE(
      call(port, "POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"cm5"}})")
          .status == 201);
  auto rest =
      call(port, "GET", "/api/v1/namespaces/default/configmaps?limit=1&continue=" + latest_token)
          .json();
  CHECK(rest.at("items").at(0).at("metadata").at("name") == "cm4");
  CHECK(std::stoull(rv_of(rest)) > std::stoull(list_rv));
  auto last = call(port, "GET",
                   "/api/v1/namespaces/default/configmaps?limit=1&continue=" +
                       std::string(rest.at("metadata").at("continue").as_string()))
                  .json();
  CHECK(last.at("items").at(0).at("metadata").at("name") == "cm5");
  CHECK(rv_of(last) == rv_of(rest));
}

TEST_CASE("continue tokens are decoded as the API server does") {
  rg::sim::Server server;
  auto port = server.port();
  auto zero_rv = call(port, "GET",
                      "/api/v1/pods?limit=1&continue=" +
                          rg::sim::encode_continue({0, std::string("default/a\0", 10)}));
  CHECK(zero_rv.status == 400);
  CHECK(zero_rv.json().at("message") ==
        "continue key is not valid: incorrect encoded start resourceVersion (version "
        "meta.k8s.io/v1)");
  auto latest = rg::sim::decode_continue(rg::sim::encode_continue({std::nullopt, "x"}));
  CHECK(!latest.resource_version);
  CHECK(latest.start == "x");
}

TEST_CASE("list options are validated as the API server does") {
  rg::sim::Server server;
  auto port = server.port();
  auto no_rv = call(port, "GET", "/api/v1/pods?resourceVersionMatch=NotOlderThan");
  CHECK(no_rv.status == 422);
  CHECK(no_rv.json().at("message") ==
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
        "resourceVersionMatch is forbidden unless resourceVersion is provided");
  auto initial_on_list = call(port, "GET", "/api/v1/pods?sendInitialEvents=true");
  CHECK(initial_on_list.status == 422);
  auto watch_without_match = call(port, "GET", "/api/v1/pods?watch=true&sendInitialEvents=true");
  CHECK(watch_without_match.status == 422);
  CHECK(watch_without_match.json().at("message") ==
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  auto future = call(port, "GET", "/api/v1/pods?resourceVersion=999999");
  CHECK(future.status == 504);
  CHECK(future.json().at("details").at("causes").at(0).at("reason") == "ResourceVersionTooLarge");
  auto rv_and_continue = call(port, "GET", "/api/v1/pods?resourceVersion=5&continue=abc");
  CHECK(rv_and_continue.status == 400);
}

TEST_CASE("with the WatchList feature gate off, a watch with sendInitialEvents is refused") {
  rg::sim::ServerOptions options;
  options.watch.watch_list = false;
  rg::sim::Server server(options);
  auto refused = call(server.port(), "GET",
                      "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch="
                      "NotOlderThan&allowWatchBookmarks=true");
  CHECK(refused.status == 422);
  CHECK(refused.json().at("message") ==
        "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled");
}

TEST_CASE("selectors filter lists by labels and fields") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(
      call(port, "POST", "/api/v1/namespaces/default/pods", pod("a", R"({"app":"web"})")).status ==
      201);
  REQUIRE(
      call(port, "POST", "/api/v1/namespaces/default/pods", pod("b", R"({"app":"db"})")).status ==
      201);
  REQUIRE(
      call(
          port, "POST", "/api/v1/namespaces/default/pods/b/binding",
          R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"b"},"target":{"kind":"Node","name":"n1"}})")
          .status == 201);
  auto web = call(port, "GET", "/api/v1/pods?labelSelector=app%3Dweb").json();
  REQUIRE(web.at("items").as_array().size() == 1);
  CHECK(web.at("items").at(0).at("metadata").at("name") == "a");
  auto on_node =
      call(port, "GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dn1").json();
  REQUIRE(on_node.at("items").as_array().size() == 1);
  CHECK(on_node.at("items").at(0).at("metadata").at("name") == "b");
  auto by_name =
      call(port, "GET", "/api/v1/pods?fieldSelector=metadata.name%3Da,metadata.namespace%3Ddefault")
          .json();
  CHECK(by_name.at("items").as_array().size() == 1);
  auto pending = call(port, "GET", "/api/v1/pods?fieldSelector=status.phase%3DPending").json();
  CHECK(pending.at("items").as_array().size() == 2);
}

TEST_CASE("delete answers a Status, honours preconditions and cascades to owned objects") {
  rg::sim::Server server;
  auto port = server.port();
  auto cm =
      call(port, "POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c1"}})")
          .json();
  auto wrong = call(port, "DELETE", "/api/v1/namespaces/default/configmaps/c1",
                    R"({"preconditions":{"uid":"nope"}})");
  CHECK(wrong.status == 409);
  auto gone = call(port, "DELETE", "/api/v1/namespaces/default/configmaps/c1",
                   R"({"propagationPolicy":"Background"})");
  CHECK(gone.status == 200);
  auto status = gone.json();
  CHECK(status.at("kind") == "Status");
  CHECK(status.at("status") == "Success");
  CHECK(status.at("details").at("uid") == cm.at("metadata").at("uid"));
  CHECK(call(port, "GET", "/api/v1/namespaces/default/configmaps/c1").status == 404);

  auto owner =
      call(port, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web")).json();
  std::string owned =
      R"({"metadata":{"name":"web-1","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":")" +
      std::string(owner.at("metadata").at("uid").as_string()) +
      R"(","controller":true}]},"spec":{"containers":[{"name":"c","image":"x"}]}})";
  REQUIRE(call(port, "POST", "/api/v1/namespaces/default/pods", owned).status == 201);
  REQUIRE(call(port, "DELETE", "/apis/apps/v1/namespaces/default/deployments/web").status == 200);
  CHECK(call(port, "GET", "/api/v1/namespaces/default/pods/web-1").status == 404);

  // Finalizers turn a delete into a deletionTimestamp; removing them deletes.
  auto held = call(port, "POST", "/api/v1/namespaces/default/configmaps",
                   R"({"metadata":{"name":"held","finalizers":["example.com/hold"]}})");
  REQUIRE(held.status == 201);
  auto marked = call(port, "DELETE", "/api/v1/namespaces/default/configmaps/held");
  CHECK(marked.status == 200);
  CHECK(marked.json().at("metadata").as_object().contains("deletionTimestamp"));
  CHECK(call(port, "PATCH", "/api/v1/namespaces/default/configmaps/held",
             R"({"metadata":{"finalizers":null}})",
             {{"Content-Type", "application/merge-patch+json"}})
            .status == 200);
  CHECK(call(port, "GET", "/api/v1/namespaces/default/configmaps/held").status == 404);
}

TEST_CASE("every namespace has a default ServiceAccount, as the ServiceAccount controller keeps") {
  rg::sim::Server server;
  auto port = server.port();
  for (std::string ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    CHECK(call(port, "GET", "/api/v1/namespaces/" + ns + "/serviceaccounts/default").status == 200);
  REQUIRE(call(port, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})").status ==
          201);
  auto account = call(port, "GET", "/api/v1/namespaces/team/serviceaccounts/default");
  REQUIRE(account.status == 200);
  CHECK(account.json().at("kind") == "ServiceAccount");
  const auto uid = account.json().at("metadata").at("uid");

  // Deleted, it comes back (a new object).
  REQUIRE(call(port, "DELETE", "/api/v1/namespaces/team/serviceaccounts/default").status == 200);
  auto again = call(port, "GET", "/api/v1/namespaces/team/serviceaccounts/default");
  REQUIRE(again.status == 200);
  CHECK(again.json().at("metadata").at("uid") != uid);

  // A dry-run namespace makes nothing; a deleted namespace takes its ServiceAccount along.
  REQUIRE(call(port, "POST", "/api/v1/namespaces?dryRun=All", R"({"metadata":{"name":"dry"}})")
              .status == 201);
  CHECK(call(port, "GET", "/api/v1/namespaces/dry/serviceaccounts/default").status == 404);
  REQUIRE(call(port, "DELETE", "/api/v1/namespaces/team").status == 200);
  CHECK(call(port, "GET", "/api/v1/namespaces/team/serviceaccounts/default").status == 404);
}
