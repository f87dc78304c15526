// kube-sim's custom resources over HTTP, as the apiextensions-apiserver serves them: the
// definition's defaults and status, one storage across served versions (the None conversion),
// the status and scale subresources, generation, patches (no strategic merge), paginated lists
// and watches, discovery, what a definition's change or deletion does to its objects, and
// their dependents collected when they go.
#include <doctest/doctest.h>

#include <string>

#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::Reply;
using rg::sim::test::str;
using rg::sim::test::WatchStream;

namespace {

const std::string kDefinitions = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const std::string kWidgetsV1 = "/apis/example.com/v1/namespaces/default/widgets";
const std::string kWidgetsV2 = "/apis/example.com/v2/namespaces/default/widgets";

// Widgets: v1 and v2 served, `storage` the stored one, v2 with status and scale subresources.
std::string widget_definition(const std::string& storage = "v1") {
  const std::string v1_storage = storage == "v1" ? "true" : "false";
  const std::string v2_storage = storage == "v2" ? "true" : "false";
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"widgets","kind":"Widget","shortNames":["wd"]},
      "versions":[
        {"name":"v1","served":true,"storage":)" +
         v1_storage +
         R"(,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
        {"name":"v2","served":true,"storage":)" +
         v2_storage +
         R"(,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
         "subresources":{"status":{},"scale":{"specReplicasPath":".spec.size","statusReplicasPath":".status.ready","labelSelectorPath":".status.selector"}}}]}})";
}

Reply define_widgets(unsigned short port, const std::string& storage = "v1") {
  return call(port, "POST", kDefinitions, widget_definition(storage));
}

Reply patch(unsigned short port, const std::string& path, const std::string& body,
            const std::string& content_type = "application/merge-patch+json") {
  return call(port, "PATCH", path, body, {{"Content-Type", content_type}});
}

std::string widget(const std::string& api_version, const std::string& name, int size) {
  return R"({"apiVersion":")" + api_version + R"(","kind":"Widget","metadata":{"name":")" + name +
         R"("},"spec":{"size":)" + std::to_string(size) + R"(},"status":{"ready":7}})";
}

const json::value* condition(const json::value& crd, const std::string& type) {
  for (const auto& c : crd.at("status").at("conditions").as_array())
    if (c.at("type") == type.c_str()) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("a definition is defaulted, and its status is written as the controllers write it") {
  rg::sim::Server server;
  auto port = server.port();
  auto created = define_widgets(port);
  REQUIRE(created.status == 201);
  // The create answer is the object before the naming and establishing controllers.
  auto answered = created.json();
  CHECK(answered.at("spec").at("names").at("singular") == "widget");
  CHECK(answered.at("spec").at("names").at("listKind") == "WidgetList");
  CHECK(answered.at("spec").at("conversion") == json::parse(R"({"strategy":"None"})"));
  CHECK(answered.at("status").at("storedVersions") == json::parse(R"(["v1"])"));
  CHECK(answered.at("status").at("acceptedNames") == json::parse(R"({"plural":"","kind":""})"));
  CHECK(!answered.at("status").as_object().contains("conditions"));

  // Served at once, Established.
  auto crd = call(port, "GET", kDefinitions + "/widgets.example.com").json();
  REQUIRE(condition(crd, "NamesAccepted") != nullptr);
  CHECK(condition(crd, "NamesAccepted")->at("reason") == "NoConflicts");
  REQUIRE(condition(crd, "Established") != nullptr);
  CHECK(condition(crd, "Established")->at("status") == "True");
  CHECK(condition(crd, "Established")->at("reason") == "InitialNamesAccepted");
  CHECK(crd.at("status").at("acceptedNames").at("shortNames") == json::parse(R"(["wd"])"));
  CHECK(crd.at("status").at("acceptedNames").at("listKind") == "WidgetList");
  CHECK(call(port, "GET", kWidgetsV1).status == 200);

  // A new storage version joins storedVersions; the old one stays (migration is the user's).
  auto moved = call(port, "PUT", kDefinitions + "/widgets.example.com", widget_definition("v2"));
  REQUIRE(moved.status == 200);
  CHECK(moved.json().at("status").at("storedVersions") == json::parse(R"(["v1","v2"])"));
  CHECK(moved.json().at("metadata").at("generation") == 2);

  // Validation as the apiextensions-apiserver's.
  auto wrong_name = call(port, "POST", kDefinitions,
                         R"({"metadata":{"name":"things.example.com"},"spec":{"group":"example.com",
                             "scope":"Cluster","names":{"plural":"gadgets","kind":"Gadget"},
                             "versions":[{"name":"v1","served":true,"storage":true}]}})");
  CHECK(wrong_name.status == 422);
  CHECK(wrong_name.body.find(R"(must be spec.names.plural+\".\"+spec.group)") != std::string::npos);
  auto two_storages =
      call(port, "POST", kDefinitions,
           R"({"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com",
               "scope":"Cluster","names":{"plural":"gadgets","kind":"Gadget"},
               "versions":[{"name":"v1","served":true,"storage":true},{"name":"v2","served":true,"storage":true}]}})");
  CHECK(two_storages.status == 422);
  CHECK(two_storages.body.find("must have exactly one version marked as storage version") !=
        std::string::npos);
  auto scope_change =
      patch(port, kDefinitions + "/widgets.example.com", R"({"spec":{"scope":"Cluster"}})");
  CHECK(scope_change.status == 422);
  CHECK(scope_change.body.find("field is immutable") != std::string::npos);
}

TEST_CASE("the served versions share one storage and differ only in apiVersion") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  auto created = call(port, "POST", kWidgetsV2, widget("example.com/v2", "a", 3));
  REQUIRE(created.status == 201);
  CHECK(created.json().at("apiVersion") == "example.com/v2");
  const auto uid = str(created.json().at("metadata").at("uid"));

  auto as_v1 = call(port, "GET", kWidgetsV1 + "/a").json();
  CHECK(as_v1.at("apiVersion") == "example.com/v1");
  CHECK(str(as_v1.at("metadata").at("uid")) == uid);
  CHECK(as_v1.at("spec").at("size") == 3);
  auto list_v2 = call(port, "GET", kWidgetsV2).json();
  CHECK(list_v2.at("apiVersion") == "example.com/v2");
  CHECK(list_v2.at("kind") == "WidgetList");
  CHECK(list_v2.at("items").at(0).at("apiVersion") == "example.com/v2");

  // Moving the storage version keeps the objects; they read in every version as before.
  REQUIRE(
      call(port, "PUT", kDefinitions + "/widgets.example.com", widget_definition("v2")).status ==
      200);
  auto after = call(port, "GET", kWidgetsV1 + "/a").json();
  CHECK(after.at("apiVersion") == "example.com/v1");
  CHECK(str(after.at("metadata").at("uid")) == uid);
  CHECK(call(port, "GET", kWidgetsV2 + "/a").json().at("apiVersion") == "example.com/v2");

  // A version no longer served is gone from the API; the objects stay in the others.
  auto v2_only = json::parse(widget_definition("v2"));
  auto& versions = v2_only.at("spec").at("versions").as_array();
  versions.erase(versions.begin());
  REQUIRE(
      call(port, "PUT", kDefinitions + "/widgets.example.com", json::serialize(v2_only)).status ==
      200);
  CHECK(call(port, "GET", kWidgetsV1 + "/a").status == 404);
  CHECK(call(port, "GET", kWidgetsV2 + "/a").status == 200);

  // Deleting the definition deletes its objects and stops serving the kind.
  REQUIRE(call(port, "DELETE", kDefinitions + "/widgets.example.com").status == 200);
  CHECK(call(port, "GET", kWidgetsV2).status == 404);
  REQUIRE(define_widgets(port).status == 201);
  CHECK(call(port, "GET", kWidgetsV2).json().at("items").as_array().empty());
}

TEST_CASE("the status subresource owns status; generation follows every other change") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  // v2 has a status subresource: create drops status.
  auto created = call(port, "POST", kWidgetsV2, widget("example.com/v2", "a", 3)).json();
  CHECK(!created.as_object().contains("status"));
  CHECK(created.at("metadata").at("generation") == 1);

  // The main resource ignores status; /status ignores everything else.
  auto main = patch(port, kWidgetsV2 + "/a", R"({"spec":{"size":4},"status":{"ready":9}})");
  REQUIRE(main.status == 200);
  CHECK(main.json().at("spec").at("size") == 4);
  CHECK(!main.json().as_object().contains("status"));
  CHECK(main.json().at("metadata").at("generation") == 2);
  auto status = patch(port, kWidgetsV2 + "/a/status",
                      R"({"spec":{"size":40},"status":{"ready":4,"selector":"app=w"}})");
  REQUIRE(status.status == 200);
  CHECK(status.json().at("spec").at("size") == 4);
  CHECK(status.json().at("status").at("ready") == 4);
  CHECK(status.json().at("metadata").at("generation") == 2);

  // v1 of the same objects has no subresources: status is written through the main
  // resource, and any change but metadata's moves generation.
  auto through_v1 = patch(port, kWidgetsV1 + "/a", R"({"status":{"ready":5}})");
  REQUIRE(through_v1.status == 200);
  CHECK(through_v1.json().at("status").at("ready") == 5);
  CHECK(through_v1.json().at("metadata").at("generation") == 3);
  auto labelled = patch(port, kWidgetsV1 + "/a", R"({"metadata":{"labels":{"x":"y"}}})");
  CHECK(labelled.json().at("metadata").at("generation") == 3);
  CHECK(call(port, "GET", kWidgetsV1 + "/a/status").status == 404);
}

TEST_CASE("the scale subresource maps the definition's paths to an autoscaling/v1 Scale") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  REQUIRE(call(port, "POST", kWidgetsV2, widget("example.com/v2", "a", 3)).status == 201);
  REQUIRE(patch(port, kWidgetsV2 + "/a/status", R"({"status":{"ready":2,"selector":"app=w"}})")
              .status == 200);

  auto scale = call(port, "GET", kWidgetsV2 + "/a/scale");
  REQUIRE(scale.status == 200);
  auto view = scale.json();
  CHECK(view.at("apiVersion") == "autoscaling/v1");
  CHECK(view.at("kind") == "Scale");
  CHECK(view.at("spec").at("replicas") == 3);
  CHECK(view.at("status") == json::parse(R"({"replicas":2,"selector":"app=w"})"));

  auto scaled = patch(port, kWidgetsV2 + "/a/scale", R"({"spec":{"replicas":5}})");
  REQUIRE(scaled.status == 200);
  CHECK(scaled.json().at("spec").at("replicas") == 5);
  auto object = call(port, "GET", kWidgetsV2 + "/a").json();
  CHECK(object.at("spec").at("size") == 5);
  CHECK(object.at("metadata").at("generation") == 2);

  // A server-side apply of a Scale sets the replicas path too.
  auto applied = patch(port, kWidgetsV2 + "/a/scale?fieldManager=hpa&force=true",
                       R"({"apiVersion":"autoscaling/v1","kind":"Scale","spec":{"replicas":6}})",
                       "application/apply-patch+yaml");
  REQUIRE(applied.status == 200);
  CHECK(call(port, "GET", kWidgetsV2 + "/a").json().at("spec").at("size") == 6);
  CHECK(call(port, "GET", kWidgetsV1 + "/a/scale").status == 404);
}

TEST_CASE("custom resources take merge, JSON and apply patches, and refuse strategic merge") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  REQUIRE(call(port, "POST", kWidgetsV1, widget("example.com/v1", "a", 3)).status == 201);
  auto strategic = patch(port, kWidgetsV1 + "/a", R"({"spec":{"size":4}})",
                         "application/strategic-merge-patch+json");
  CHECK(strategic.status == 415);
  CHECK(strategic.json().at("reason") == "UnsupportedMediaType");
  CHECK(strategic.json().at("message") ==
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  auto json_patch =
      patch(port, kWidgetsV1 + "/a", R"([{"op":"replace","path":"/spec/size","value":8}])",
            "application/json-patch+json");
  REQUIRE(json_patch.status == 200);
  CHECK(json_patch.json().at("spec").at("size") == 8);
  auto applied =
      patch(port, kWidgetsV1 + "/b?fieldManager=me",
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  size: 1\n",
            "application/apply-patch+yaml");
  CHECK(applied.status == 201);
}

TEST_CASE("custom resources list in pages and watch across versions") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  for (int i = 0; i < 5; ++i)
    REQUIRE(call(port, "POST", kWidgetsV1, widget("example.com/v1", "w" + std::to_string(i), i))
                .status == 201);
  auto first = call(port, "GET", kWidgetsV2 + "?limit=2").json();
  CHECK(first.at("items").as_array().size() == 2);
  CHECK(first.at("items").at(0).at("apiVersion") == "example.com/v2");
  const auto token = str(first.at("metadata").at("continue"));
  REQUIRE(!token.empty());
  auto second = call(port, "GET", kWidgetsV2 + "?limit=2&continue=" + token).json();
  CHECK(str(second.at("items").at(0).at("metadata").at("name")) == "w2");

  const auto rv = str(first.at("metadata").at("resourceVersion"));
  WatchStream watch(port, kWidgetsV2 + "?watch=1&resourceVersion=" + rv);
  REQUIRE(watch.status() == 200);
  REQUIRE(patch(port, kWidgetsV1 + "/w0", R"({"spec":{"size":10}})").status == 200);
  auto event = json::parse(watch.next_line());
  CHECK(event.at("type") == "MODIFIED");
  CHECK(event.at("object").at("apiVersion") == "example.com/v2");
  CHECK(event.at("object").at("spec").at("size") == 10);

  // A change of the definition ends its watches, as the API server rebuilds the storage.
  REQUIRE(
      call(port, "PUT", kDefinitions + "/widgets.example.com", widget_definition("v2")).status ==
      200);
  CHECK(watch.next_line().empty());
}

TEST_CASE("discovery lists a definition's versions, newest first, until it is deleted") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  auto group = call(port, "GET", "/apis/example.com").json();
  CHECK(group.at("preferredVersion").at("version") == "v2");
  CHECK(group.at("versions").at(0).at("version") == "v2");
  CHECK(group.at("versions").at(1).at("version") == "v1");
  auto resources = call(port, "GET", "/apis/example.com/v2").json();
  bool scale = false;
  for (const auto& resource : resources.at("resources").as_array())
    if (resource.at("name") == "widgets/scale") scale = true;
  CHECK(scale);
  auto aggregated =
      call(port, "GET", "/apis", "",
           {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  REQUIRE(aggregated.status == 200);
  CHECK(aggregated.body.find("\"widgets\"") != std::string::npos);
  REQUIRE(call(port, "DELETE", kDefinitions + "/widgets.example.com").status == 200);
  CHECK(call(port, "GET", "/apis/example.com").status == 404);
  CHECK(call(port, "GET", "/apis", "",
             {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}})
            .body.find("\"widgets\"") == std::string::npos);
}

TEST_CASE("a custom resource owns: deleting a Widget deletes the ConfigMap it owns") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(define_widgets(port).status == 201);
  auto owner = call(port, "POST", kWidgetsV2, widget("example.com/v2", "w", 1)).json();
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  REQUIRE(call(port, "POST", configmaps,
               R"({"metadata":{"name":"w-config","ownerReferences":[{"apiVersion":"example.com/v1",
                   "kind":"Widget","name":"w","uid":")" +
                   str(owner.at("metadata").at("uid")) + R"(","controller":true}]}})")
              .status == 201);
  REQUIRE(call(port, "DELETE", kWidgetsV1 + "/w").status == 200);
  CHECK(call(port, "GET", configmaps + "/w-config").status == 404);
}
