// kube-sim's write semantics over HTTP: server-side apply (create, merge, prune, conflicts,
// force), managedFields of every writer, protobuf request bodies, graceful pod deletion and
// per-kind name rules.
#include <doctest/doctest.h>

#include <optional>

#include "sim/server.hpp"
#include "test/client/protobuf/encoder.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kConfigMaps;
using rg::sim::test::kDeployments;
using rg::sim::test::Reply;

namespace {

Reply apply(unsigned short port, const std::string& path, const std::string& body,
            const std::string& query) {
  return call(port, "PATCH", path + "?" + query, body,
              {{"Content-Type", "application/apply-patch+yaml"}});
}

/// The managedFields entry of `manager` with `operation` (a copy: callers pass temporaries).
std::optional<json::object> entry(const json::value& object, const std::string& manager,
                                  const std::string& operation = "Apply") {
  const auto* fields = object.at("metadata").as_object().if_contains("managedFields");
  if (fields == nullptr) return std::nullopt;
  for (const auto& item : fields->as_array())
    if (item.at("manager") == manager.c_str() && item.at("operation") == operation.c_str())
      return item.as_object();
  return std::nullopt;
}

std::string cm_config(const std::string& data) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n" + data;
}

std::string deployment_config(const std::string& name, int replicas, const std::string& image) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":)" + std::to_string(replicas) +
         R"(,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":")" +
         image + R"("}]}}}})";
}

}  // namespace

TEST_CASE("server-side apply creates with 201 and records the Apply entry") {
  rg::sim::Server server;
  auto port = server.port();
  auto created = apply(port, kConfigMaps + "/cfg",
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    "
                       "app: web\ndata:\n  a: \"1\"\n",
                       "fieldManager=alice");
  REQUIRE(created.status == 201);
  auto object = created.json();
  CHECK(object.at("data").at("a") == "1");
  const auto alice = entry(object, "alice");
  REQUIRE(alice.has_value());
  CHECK(alice->at("apiVersion") == "v1");
  CHECK(alice->at("fieldsType") == "FieldsV1");
  CHECK(alice->at("time").as_string().size() == 20);
  CHECK(alice->at("fieldsV1") ==
        json::parse(R"({"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:app":{}}}})"));

  auto again = apply(port, kConfigMaps + "/cfg", cm_config("  a: \"1\"\n  b: \"2\"\n"),
                     "fieldManager=alice");
  CHECK(again.status == 200);
  // No longer applied and owned by nobody else: the label is pruned.
  CHECK(!again.json().at("metadata").as_object().contains("labels"));
  CHECK(again.json().at("data") == json::parse(R"({"a":"1","b":"2"})"));
}

TEST_CASE("apply merges managers, conflicts name the owner, force takes the field over") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(
      apply(port, kConfigMaps + "/cfg", cm_config("  a: \"1\"\n  b: \"2\"\n"), "fieldManager=alice")
          .status == 201);
  auto bob = apply(port, kConfigMaps + "/cfg", cm_config("  c: \"3\"\n"), "fieldManager=bob");
  REQUIRE(bob.status == 200);
  CHECK(bob.json().at("data") == json::parse(R"({"a":"1","b":"2","c":"3"})"));
  REQUIRE(entry(bob.json(), "bob").has_value());
  CHECK(entry(bob.json(), "bob")->at("fieldsV1") == json::parse(R"({"f:data":{"f:c":{}}})"));

  // The same value is shared ownership, not a conflict.
  auto shared =
      apply(port, kConfigMaps + "/cfg", cm_config("  a: \"1\"\n  c: \"3\"\n"), "fieldManager=bob");
  CHECK(shared.status == 200);

  auto conflict = apply(port, kConfigMaps + "/cfg", cm_config("  b: \"9\"\n  c: \"3\"\n"),
                        "fieldManager=bob&force=false");
  REQUIRE(conflict.status == 409);
  CHECK(
      conflict.json() ==
      json::parse(
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \"alice\": .data.b","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"alice\"","field":".data.b"}]},"code":409})"));
  CHECK(call(port, "GET", kConfigMaps + "/cfg").json().at("data").at("b") == "2");

  auto forced = apply(port, kConfigMaps + "/cfg", cm_config("  b: \"9\"\n  c: \"3\"\n"),
                      "fieldManager=bob&force=True");
  REQUIRE(forced.status == 200);
  CHECK(forced.json().at("data").at("b") == "9");
  CHECK(entry(forced.json(), "alice")->at("fieldsV1") == json::parse(R"({"f:data":{"f:a":{}}})"));
  CHECK(entry(forced.json(), "bob")->at("fieldsV1") ==
        json::parse(R"({"f:data":{"f:b":{},"f:c":{}}})"));
}

TEST_CASE("create, update and patch record Update entries that apply conflicts with") {
  rg::sim::Server server;
  auto port = server.port();
  auto created = call(port, "POST", kDeployments + "?fieldManager=kubectl-client-side-apply",
                      deployment_config("web", 2, "nginx:1"));
  REQUIRE(created.status == 201);
  const auto csa = entry(created.json(), "kubectl-client-side-apply", "Update");
  REQUIRE(csa.has_value());
  CHECK(csa->at("apiVersion") == "apps/v1");
  const auto& spec_fields = csa->at("fieldsV1").at("f:spec").as_object();
  CHECK(spec_fields.contains("f:replicas"));
  CHECK(spec_fields.contains("f:revisionHistoryLimit"));  // defaults belong to the creator
  CHECK(csa->at("fieldsV1")
            .at("f:spec")
            .at("f:template")
            .at("f:spec")
            .at("f:containers")
            .as_object()
            .contains(R"(k:{"name":"c"})"));

  auto conflict = apply(port, kDeployments + "/web", deployment_config("web", 5, "nginx:2"),
                        "fieldManager=kubectl&force=false");
  REQUIRE(conflict.status == 409);
  CHECK(conflict.json().at("message") ==
        "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using "
        "apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"c\"].image");
  CHECK(conflict.json().at("details").at("causes").as_array().size() == 2);

  // The default manager of a write is the User-Agent's program name.
  auto patched = call(port, "PATCH", kDeployments + "/web", R"({"spec":{"paused":true}})",
                      {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE(patched.status == 200);
  const auto by_agent = entry(patched.json(), "sim-test", "Update");
  REQUIRE(by_agent.has_value());
  CHECK(by_agent->at("fieldsV1") == json::parse(R"({"f:spec":{"f:paused":{}}})"));

  // Scale records the scale subresource and takes spec.replicas from the creator.
  auto scaled =
      call(port, "PATCH", kDeployments + "/web/scale?fieldManager=scaler",
           R"({"spec":{"replicas":4}})", {{"Content-Type", "application/merge-patch+json"}});
  REQUIRE(scaled.status == 200);
  auto after = call(port, "GET", kDeployments + "/web").json();
  const auto scaler = entry(after, "scaler", "Update");
  REQUIRE(scaler.has_value());
  CHECK(scaler->at("subresource") == "scale");
  CHECK(scaler->at("fieldsV1") == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  CHECK(!entry(after, "kubectl-client-side-apply", "Update")
             ->at("fieldsV1")
             .at("f:spec")
             .as_object()
             .contains("f:replicas"));

  auto forced = apply(port, kDeployments + "/web", deployment_config("web", 5, "nginx:2"),
                      "fieldManager=kubectl&force=true");
  REQUIRE(forced.status == 200);
  CHECK(forced.json().at("spec").at("replicas") == 5);
  CHECK(forced.json().at("spec").at("template").at("spec").at("containers").at(0).at("image") ==
        "nginx:2");
  CHECK(forced.json().at("metadata").at("generation") == 4);
}

TEST_CASE("apply merges keyed lists item by item") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(apply(port, kDeployments + "/web", deployment_config("web", 1, "nginx:1"),
                "fieldManager=alice")
              .status == 201);
  auto env = apply(
      port, kDeployments + "/web",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"}]},{"name":"sidecar","image":"busybox"}]}}}})",
      "fieldManager=bob");
  REQUIRE(env.status == 200);
  const auto env_json = env.json();
  const auto& containers = env_json.at("spec").at("template").at("spec").at("containers");
  REQUIRE(containers.as_array().size() == 2);
  CHECK(containers.at(0).at("image") == "nginx:1");
  CHECK(containers.at(0).at("env").at(0).at("name") == "A");
  CHECK(containers.at(1).at("name") == "sidecar");
  const auto bob_fields = entry(env_json, "bob")->at("fieldsV1");
  CHECK(
      bob_fields.at("f:spec").at("f:template").at("f:spec").at("f:containers") ==
      json::parse(
          R"({"k:{\"name\":\"c\"}":{".":{},"f:env":{"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}}},"f:name":{}},"k:{\"name\":\"sidecar\"}":{".":{},"f:image":{},"f:name":{}}})"));

  // Bob stops applying the sidecar and the env: both go, alice's container stays whole.
  auto pruned = apply(
      port, kDeployments + "/web",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"team":"b"}}})",
      "fieldManager=bob");
  REQUIRE(pruned.status == 200);
  // (`resources` is a struct: encoding/json writes it even with omitempty.)
  CHECK(pruned.json().at("spec").at("template").at("spec").at("containers") ==
        json::parse(R"([{"name":"c","image":"nginx:1","resources":{}}])"));
  CHECK(pruned.json().at("metadata").at("labels").at("team") == "b");
}

TEST_CASE("a keyed list item without its key is refused, not appended again on every apply") {
  // Found by test/fuzz/sim_apply: a container without a name could not be matched to itself,
  // so each apply of the same configuration appended another copy.
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(apply(port, kDeployments + "/web", deployment_config("web", 1, "nginx:1"),
                "fieldManager=alice")
              .status == 201);
  const std::string unnamed =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"image":"busybox"}]}}}})";
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto refused = apply(port, kDeployments + "/web", unnamed, "fieldManager=bob");
    CHECK(refused.status == 500);
    CHECK(rg::sim::test::str(refused.json().at("message")) ==
          "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): "
          ".spec.template.spec.containers: element 0: associative list with keys has an element "
          "that omits key field \"name\" (and doesn't have default value)");
  }
  auto got = call(port, "GET", kDeployments + "/web");
  CHECK(got.json().at("spec").at("template").at("spec").at("containers").as_array().size() == 1);
  // A port needs only its containerPort: protocol defaults to TCP.
  auto port_only = apply(
      port, kDeployments + "/web",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}}})",
      "fieldManager=bob");
  CHECK(port_only.status == 200);
}

TEST_CASE("apply needs a field manager, apiVersion and kind, and refuses force elsewhere") {
  rg::sim::Server server;
  auto port = server.port();
  auto no_manager = apply(port, kConfigMaps + "/cfg", cm_config("  a: b\n"), "force=false");
  CHECK(no_manager.status == 422);
  CHECK(no_manager.json().at("message") ==
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for "
        "apply patch");
  auto no_kind = apply(port, kConfigMaps + "/cfg", "metadata:\n  name: cfg\n", "fieldManager=x");
  CHECK(no_kind.status == 400);
  auto other_name =
      apply(port, kConfigMaps + "/cfg",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n", "fieldManager=x");
  CHECK(other_name.status == 400);
  // force is decoded like every options boolean: anything but absent, 0 and false is true.
  CHECK(apply(port, kConfigMaps + "/cfg", cm_config("  a: b\n"), "fieldManager=x&force=maybe")
            .status == 201);
  auto forced_merge = call(port, "PATCH", kConfigMaps + "/cfg?force=true", "{}",
                           {{"Content-Type", "application/merge-patch+json"}});
  CHECK(forced_merge.status == 422);
}

TEST_CASE("protobuf request bodies: create, update and delete with DeleteOptions") {
  rg::sim::Server server;
  auto port = server.port();
  using rg::test::Encoder;
  const std::vector<std::pair<std::string, std::string>> protobuf = {
      {"Content-Type", "application/vnd.kubernetes.protobuf"},
      {"Accept", "application/vnd.kubernetes.protobuf,application/json"}};
  auto secret = [](std::string_view status) {
    Encoder meta = rg::test::new_object_meta("sh.helm.release.v1.demo.v1", "default");
    meta.entry(11, "owner", "helm").entry(11, "status", status);
    Encoder body;
    body.message(1, meta).entry(2, "release", "H4sI").bytes(3, "helm.sh/release.v1");
    return rg::test::envelope("v1", "Secret", body);
  };
  auto created = call(port, "POST", "/api/v1/namespaces/default/secrets?fieldManager=helm",
                      secret("pending-install"), protobuf);
  REQUIRE(created.status == 201);
  CHECK(created.header("content-type") == "application/json");
  auto object = created.json();
  CHECK(object.at("type") == "helm.sh/release.v1");
  CHECK(object.at("data").at("release") == "SDRzSQ==");
  CHECK(object.at("metadata").at("labels").at("status") == "pending-install");
  CHECK(entry(object, "helm", "Update").has_value());

  auto updated = call(port, "PUT", "/api/v1/namespaces/default/secrets/sh.helm.release.v1.demo.v1",
                      secret("deployed"), protobuf);
  REQUIRE(updated.status == 200);
  CHECK(updated.json().at("metadata").at("labels").at("status") == "deployed");

  // Helm's DELETE body, byte for byte.
  static constexpr char kHelmDeleteBody[] =
      "k8s\0\n\x13\n\x02v1\x12\rDeleteOptions\x12\0\x1a\0\"\0";
  const std::string delete_options(kHelmDeleteBody, sizeof kHelmDeleteBody - 1);
  auto deleted =
      call(port, "DELETE", "/api/v1/namespaces/default/secrets/sh.helm.release.v1.demo.v1",
           delete_options, protobuf);
  CHECK(deleted.status == 200);
  CHECK(call(port, "GET", "/api/v1/namespaces/default/secrets/sh.helm.release.v1.demo.v1").status ==
        404);

  auto endpoints = call(port, "POST", "/api/v1/namespaces/default/endpoints",
                        rg::test::envelope("v1", "Endpoints", Encoder()), protobuf);
  CHECK(endpoints.status == 415);
  CHECK(endpoints.json().at("reason") == "UnsupportedMediaType");
  CHECK(endpoints.json().at("message").as_string().find("v1 Endpoints") != json::string::npos);

  // The protobuf magic ("k8s\0") and then a byte that starts no valid Unknown envelope.
  auto garbage = call(port, "POST", "/api/v1/namespaces/default/secrets",
                      std::string("k8s\0\xff", 5), protobuf);
  CHECK(garbage.status == 400);
  auto cbor = call(port, "POST", "/api/v1/namespaces/default/secrets", "x",
                   {{"Content-Type", "application/cbor"}});
  CHECK(cbor.status == 415);
}

TEST_CASE("graceful deletion: a scheduled pod stays Terminating, grace 0 or unscheduled goes") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string pods = "/api/v1/namespaces/default/pods";
  auto pod = [](const std::string& name, const std::string& node) {
    std::string spec = node.empty() ? "" : R"("nodeName":")" + node + R"(",)";
    return R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec +
           R"("terminationGracePeriodSeconds":20,"containers":[{"name":"c","image":"nginx"}]}})";
  };
  REQUIRE(call(port, "POST", pods, pod("scheduled", "node-1")).status == 201);
  auto first = call(port, "DELETE", pods + "/scheduled");
  REQUIRE(first.status == 200);
  auto terminating = first.json();
  CHECK(terminating.at("kind") == "Pod");
  CHECK(terminating.at("metadata").at("deletionGracePeriodSeconds") == 20);
  CHECK(terminating.at("metadata").at("deletionTimestamp").as_string() >
        terminating.at("metadata").at("creationTimestamp").as_string());
  CHECK(call(port, "GET", pods + "/scheduled").status == 200);

  // A shorter grace period moves the deadline; gracePeriodSeconds=0 deletes at once.
  auto shorter = call(port, "DELETE", pods + "/scheduled", R"({"gracePeriodSeconds":5})");
  CHECK(shorter.json().at("metadata").at("deletionGracePeriodSeconds") == 5);
  CHECK(call(port, "DELETE", pods + "/scheduled?gracePeriodSeconds=0").status == 200);
  CHECK(call(port, "GET", pods + "/scheduled").status == 404);

  REQUIRE(call(port, "POST", pods, pod("pending", "")).status == 201);
  CHECK(call(port, "DELETE", pods + "/pending").status == 200);
  CHECK(call(port, "GET", pods + "/pending").status == 404);
}

TEST_CASE("names follow each kind's rule") {
  rg::sim::Server server;
  auto port = server.port();
  auto role = call(port, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                   R"({"metadata":{"name":"system:controller:replica-guard"},"rules":[]})");
  CHECK(role.status == 201);
  auto slash = call(port, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                    R"({"metadata":{"name":"a/b"}})");
  CHECK(slash.status == 422);
  auto dotted_ns = call(port, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"a.b"}})");
  CHECK(dotted_ns.status == 422);
  auto digit_service = call(port, "POST", "/api/v1/namespaces/default/services",
                            R"({"metadata":{"name":"1svc"},"spec":{}})");
  CHECK(digit_service.status == 422);
  auto dotted_cm = call(port, "POST", kConfigMaps, R"({"metadata":{"name":"a.b"},"data":{}})");
  CHECK(dotted_cm.status == 201);
}

TEST_CASE("dryRun=All answers the result and stores nothing") {
  rg::sim::Server server;
  auto port = server.port();
  auto dry_create = call(port, "POST", kConfigMaps + "?dryRun=All",
                         R"({"metadata":{"name":"cfg"},"data":{"a":"1"}})");
  CHECK(dry_create.status == 201);
  CHECK(dry_create.json().at("data").at("a") == "1");
  CHECK(call(port, "GET", kConfigMaps + "/cfg").status == 404);
  auto dry_apply =
      apply(port, kConfigMaps + "/cfg", cm_config("  a: \"1\"\n"), "fieldManager=x&dryRun=All");
  CHECK(dry_apply.status == 201);
  CHECK(call(port, "GET", kConfigMaps + "/cfg").status == 404);

  REQUIRE(apply(port, kConfigMaps + "/cfg", cm_config("  a: \"1\"\n"), "fieldManager=x").status ==
          201);
  const auto stored = call(port, "GET", kConfigMaps + "/cfg").json();
  auto dry_change =
      apply(port, kConfigMaps + "/cfg", cm_config("  a: \"2\"\n"), "fieldManager=x&dryRun=All");
  CHECK(dry_change.status == 200);
  CHECK(dry_change.json().at("data").at("a") == "2");
  auto dry_patch = call(port, "PATCH", kConfigMaps + "/cfg?dryRun=All", R"({"data":{"b":"3"}})",
                        {{"Content-Type", "application/merge-patch+json"}});
  CHECK(dry_patch.json().at("data").at("b") == "3");
  CHECK(call(port, "DELETE", kConfigMaps + "/cfg?dryRun=All").status == 200);
  CHECK(call(port, "DELETE", kConfigMaps + "/cfg", R"({"dryRun":["All"]})").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/cfg").json() == stored);

  auto unsupported =
      call(port, "POST", kConfigMaps + "?dryRun=Some", R"({"metadata":{"name":"x"}})");
  CHECK(unsupported.status == 422);
  CHECK(unsupported.json().at("message") ==
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: "
        "supported values: \"All\"");
}

TEST_CASE("apply to /status owns status; status sent to the main resource is ignored") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(apply(port, kDeployments + "/web", deployment_config("web", 1, "nginx:1"),
                "fieldManager=alice")
              .status == 201);
  auto status = apply(
      port, kDeployments + "/web/status",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"status":{"replicas":3,"conditions":[{"type":"Available","status":"True"}]}})",
      "fieldManager=controller");
  REQUIRE(status.status == 200);
  auto object = status.json();
  CHECK(object.at("status").at("replicas") == 3);
  const auto controller = entry(object, "controller");
  REQUIRE(controller.has_value());
  CHECK(controller->at("subresource") == "status");
  CHECK(
      controller->at("fieldsV1") ==
      json::parse(
          R"({"f:status":{"f:conditions":{"k:{\"type\":\"Available\"}":{".":{},"f:status":{},"f:type":{}}},"f:replicas":{}}})"));

  auto main = apply(
      port, kDeployments + "/web",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}},"status":{"replicas":9}})",
      "fieldManager=alice");
  REQUIRE(main.status == 200);
  const auto after = main.json();
  CHECK(after.at("status").at("replicas") == 3);
  CHECK(!entry(after, "alice")->at("fieldsV1").as_object().contains("f:status"));
  CHECK(entry(after, "controller").has_value());
}

TEST_CASE("apply to /scale owns the object's spec.replicas under the scale subresource") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(apply(port, kDeployments + "/web", deployment_config("web", 2, "nginx:1"),
                "fieldManager=kubectl")
              .status == 201);
  const std::string scale =
      "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 5\n";

  // The replicas belong to kubectl: a conflict naming it, until forced.
  auto conflict = apply(port, kDeployments + "/web/scale", scale, "fieldManager=hpa");
  REQUIRE(conflict.status == 409);
  CHECK(conflict.json().at("message") ==
        "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
  auto forced = apply(port, kDeployments + "/web/scale", scale, "fieldManager=hpa&force=true");
  REQUIRE(forced.status == 200);
  CHECK(forced.json().at("kind") == "Scale");
  CHECK(forced.json().at("apiVersion") == "autoscaling/v1");
  CHECK(forced.json().at("spec").at("replicas") == 5);

  auto object = call(port, "GET", kDeployments + "/web").json();
  CHECK(object.at("spec").at("replicas") == 5);
  CHECK(object.at("metadata").at("generation") == 2);
  const auto hpa = entry(object, "hpa");
  REQUIRE(hpa.has_value());
  CHECK(hpa->at("subresource") == "scale");
  CHECK(hpa->at("fieldsV1") == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  CHECK(!entry(object, "kubectl")->at("fieldsV1").at("f:spec").as_object().contains("f:replicas"));

  auto wrong_kind = apply(port, kDeployments + "/web/scale", deployment_config("web", 1, "x"),
                          "fieldManager=hpa");
  CHECK(wrong_kind.status == 400);
  CHECK(apply(port, kDeployments + "/absent/scale", scale, "fieldManager=hpa").status == 404);
}

TEST_CASE("fieldValidation: Strict refuses unknown top-level and metadata fields, Warn warns") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string typo = R"({"metadata":{"name":"cfg","lables":{"a":"b"}},"dta":{"k":"v"}})";
  auto strict = call(port, "POST", kConfigMaps + "?fieldValidation=Strict", typo);
  CHECK(strict.status == 400);
  CHECK(strict.json().at("message") ==
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
        "unknown field \"metadata.lables\", unknown field \"dta\"");
  auto strict_apply =
      apply(port, kConfigMaps + "/cfg",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndta:\n  k: v\n",
            "fieldManager=x&fieldValidation=Strict");
  CHECK(strict_apply.status == 400);

  auto warned = call(port, "POST", kConfigMaps, typo);
  CHECK(warned.status == 201);
  // One Warning header per field, as kube-apiserver sends them.
  CHECK(warned.warnings == std::vector<std::string>{R"(299 - "unknown field \"metadata.lables\"")",
                                                    R"(299 - "unknown field \"dta\"")"});
  auto ignored = call(port, "POST", kConfigMaps + "?fieldValidation=Ignore",
                      R"({"metadata":{"name":"other"},"dta":{}})");
  CHECK(ignored.status == 201);
  CHECK(ignored.header("warning").empty());
  CHECK(call(port, "POST", kConfigMaps + "?fieldValidation=Loose", R"({"metadata":{"name":"x"}})")
            .status == 400);
  // Known fields pass under Strict; kinds kube-sim has no field list for are not checked.
  CHECK(call(port, "POST", kDeployments + "?fieldValidation=Strict",
             deployment_config("web", 1, "nginx:1"))
            .status == 201);
  CHECK(call(port, "GET", kConfigMaps + "?fieldValidation=Loose").status == 200);
}

TEST_CASE("a CustomResourceDefinition serves its kind until it is deleted") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const std::string monitors = "/apis/monitoring.coreos.com/v1/namespaces/default/servicemonitors";
  CHECK(call(port, "GET", monitors).status == 404);
  auto defined = call(port, "POST", crds,
                      R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
          "metadata":{"name":"servicemonitors.monitoring.coreos.com"},
          "spec":{"group":"monitoring.coreos.com","scope":"Namespaced",
                  "names":{"plural":"servicemonitors","singular":"servicemonitor","kind":"ServiceMonitor","shortNames":["smon"]},
                  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
                               "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})");
  REQUIRE(defined.status == 201);
  auto status =
      call(port, "GET", crds + "/servicemonitors.monitoring.coreos.com").json().at("status");
  CHECK(status.at("conditions").at(1).at("type") == "Established");
  CHECK(status.at("conditions").at(1).at("status") == "True");
  CHECK(status.at("acceptedNames").at("listKind") == "ServiceMonitorList");
  CHECK(status.at("storedVersions") == json::parse(R"(["v1"])"));

  auto group = call(port, "GET", "/apis/monitoring.coreos.com/v1");
  REQUIRE(group.status == 200);
  CHECK(group.json().at("resources").at(0).at("kind") == "ServiceMonitor");
  CHECK(call(port, "GET", "/apis").body.find("monitoring.coreos.com") != std::string::npos);

  auto monitor = apply(port, monitors + "/web",
                       "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  "
                       "name: web\nspec:\n  endpoints:\n  - port: metrics\n",
                       "fieldManager=helm");
  REQUIRE(monitor.status == 201);
  CHECK(monitor.json().at("spec").at("endpoints").at(0).at("port") == "metrics");
  auto list = call(port, "GET", monitors).json();
  CHECK(list.at("kind") == "ServiceMonitorList");
  CHECK(list.at("items").as_array().size() == 1);

  REQUIRE(call(port, "DELETE", crds + "/servicemonitors.monitoring.coreos.com").status == 200);
  CHECK(call(port, "GET", monitors).status == 404);
  CHECK(call(port, "GET", "/apis/monitoring.coreos.com/v1").status == 404);

  auto no_versions = call(port, "POST", crds,
                          R"({"metadata":{"name":"xs.example.com"},"spec":{"group":"example.com",
                              "scope":"Cluster","names":{"plural":"xs","kind":"X"},"versions":[]}})");
  CHECK(no_versions.status == 422);
}

TEST_CASE("an applied CustomResourceDefinition keeps its objects as its versions change") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  auto definition = [](const std::string& versions) {
    return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
               "metadata":{"name":"widgets.example.com"},
               "spec":{"group":"example.com","scope":"Cluster",
                       "names":{"plural":"widgets","kind":"Widget"},"versions":)" +
           versions + "}}";
  };
  REQUIRE(apply(port, crds + "/widgets.example.com",
                definition(R"([{"name":"v1","served":true,"storage":true}])"), "fieldManager=x")
              .status == 201);
  REQUIRE(
      call(port, "POST", "/apis/example.com/v1/widgets",
           R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"size":3})")
          .status == 201);

  auto both = apply(
      port, crds + "/widgets.example.com",
      definition(
          R"([{"name":"v1","served":true,"storage":true},{"name":"v2","served":true,"storage":false}])"),
      "fieldManager=x");
  REQUIRE(both.status == 200);
  CHECK(call(port, "GET", "/apis/example.com/v1/widgets/w").json().at("size") == 3);
  CHECK(call(port, "GET", "/apis/example.com/v2/widgets").status == 200);

  REQUIRE(apply(port, crds + "/widgets.example.com",
                definition(R"([{"name":"v2","served":true,"storage":true}])"), "fieldManager=x")
              .status == 200);
  CHECK(call(port, "GET", "/apis/example.com/v1/widgets/w").status == 404);
  // One storage: the object stays, read as v2 now (the None conversion).
  auto as_v2 = call(port, "GET", "/apis/example.com/v2/widgets/w");
  REQUIRE(as_v2.status == 200);
  CHECK(as_v2.json().at("apiVersion") == "example.com/v2");
  CHECK(as_v2.json().at("size") == 3);
}
