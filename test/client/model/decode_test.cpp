// Decoding typed projections from JSON text: field routing, skipping, escapes, number forms,
// nulls, and errors that name the field path.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>

#include "client/model/codec.hpp"
#include "client/model/deployment.hpp"
#include "client/model/pod.hpp"

namespace rg::client {
namespace {

// The message of the DecodeError `decode<T>(json)` throws; fails the test if it does not throw.
template <class T>
std::string decode_error(const std::string& json) {
  try {
    (void)decode<T>(json);
  } catch (const DecodeError& error) {
    return error.what();
  }
  FAIL("no DecodeError for: " << json);
  return {};
}

TEST_CASE("kept fields are routed and unknown subtrees of every shape are skipped") {
  const auto pod = decode<Pod>(R"({
    "kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "web-1", "namespace": "prod", "resourceVersion": "42",
      "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {"f:conditions":
        {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}}}}, "time": "2026-01-01T00:00:00Z"}],
      "labels": {"app": "web", "pod-template-hash": "abc"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
        "uid": "u1", "controller": true}]},
    "spec": {"volumes": [[1, 2.5, -3, true, false, null, "x", {"a": [{}]}]],
      "nodeName": "node-1", "containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80}]}],
      "priority": 18446744073709551615},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
      "containerStatuses": [{"name": "app", "ready": true, "restartCount": 2,
        "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
  })");
  CHECK(pod.metadata.name == "web-1");
  CHECK(pod.metadata.namespace_ == "prod");
  CHECK(pod.metadata.resource_version == "42");
  CHECK(pod.metadata.labels.size() == 2);
  CHECK(pod.metadata.labels.at("pod-template-hash") == "abc");
  REQUIRE(pod.metadata.owner_references.size() == 1);
  CHECK(pod.metadata.owner_references[0].kind == "ReplicaSet");
  CHECK(pod.metadata.owner_references[0].controller);
  CHECK_FALSE(pod.metadata.owner_references[0].block_owner_deletion);
  CHECK(pod.spec.node_name == "node-1");
  CHECK(pod.status.phase == "Running");
  REQUIRE(pod.status.conditions.size() == 1);
  CHECK(pod.status.conditions[0].status == "True");
  REQUIRE(pod.status.container_statuses.size() == 1);
  CHECK(pod.status.container_statuses[0].restart_count == 2);
  CHECK(pod.status.container_statuses[0].state.running.has_value());
  CHECK_FALSE(pod.status.container_statuses[0].state.waiting.has_value());
  CHECK_FALSE(pod.status.container_statuses[0].started.has_value());
}

TEST_CASE("escape sequences in keys and values are decoded") {
  const auto pod =
      decode<Pod>(R"({"metad\u0061ta": {"n\u0061me": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00",)"
                  R"( "labels": {"k\u00e9y": "v\u0000w"}}})");
  CHECK(pod.metadata.name == "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(pod.metadata.labels.at("k\xc3\xa9y") == std::string("v\0w", 3));
}

TEST_CASE("integers accept every JSON number form that is an exact integer") {
  CHECK(decode<Pod>(R"({"metadata": {"generation": 7}})").metadata.generation == 7);
  CHECK(decode<Pod>(R"({"metadata": {"generation": -7}})").metadata.generation == -7);
  CHECK(decode<Pod>(R"({"metadata": {"generation": 1e3}})").metadata.generation == 1000);
  CHECK(decode<Pod>(R"({"metadata": {"generation": 2.0}})").metadata.generation == 2);
  CHECK(decode<Pod>(R"({"metadata": {"generation": 4.0e+1}})").metadata.generation == 40);
  CHECK(decode<Pod>(R"({"metadata": {"generation": 9223372036854775807}})").metadata.generation ==
        9223372036854775807);
  CHECK(decode<Deployment>(R"({"metadata": {}, "spec": {"replicas": 3.0E0}})").spec.replicas == 3);
  CHECK(decode<Deployment>(R"({"metadata": {}, "spec": {"replicas": -0}})").spec.replicas == 0);
}

TEST_CASE("numbers that are not exact integers in range are errors naming the field") {
  CHECK(decode_error<Pod>(R"({"metadata": {"generation": 1.5}})") ==
        "decoding Pod: metadata.generation: expected integer, got a number out of int64 range or "
        "with a fraction");
  CHECK(decode_error<Pod>(R"({"metadata": {"generation": 18446744073709551615}})")
            .find("metadata.generation: expected integer") != std::string::npos);
  CHECK(decode_error<Pod>(
            R"({"metadata": {}, "status": {"containerStatuses": [{"restartCount": 3000000000}]}})")
            .find("status.containerStatuses[0].restartCount: expected integer, got a number out "
                  "of int32 range") != std::string::npos);
}

TEST_CASE("null leaves fields at their zero value") {
  const auto pod =
      decode<Pod>(R"({"metadata": {"name": null, "deletionTimestamp": null, "labels": null,)"
                  R"( "finalizers": null}, "spec": {"nodeName": null}, "status": null})");
  CHECK(pod.metadata.name.empty());
  CHECK_FALSE(pod.metadata.deletion_timestamp.has_value());
  CHECK(pod.metadata.labels.empty());
  CHECK(pod.spec.node_name.empty());
}

TEST_CASE("absent optional fields stay unset and API defaults apply") {
  const auto deployment = decode<Deployment>(R"({"metadata": {"name": "web"}, "spec": {}})");
  CHECK_FALSE(deployment.spec.replicas.has_value());
  CHECK(deployment.spec.desired_replicas() == 1);
  CHECK(
      decode<Deployment>(R"({"metadata": {}, "spec": {"replicas": 0}})").spec.desired_replicas() ==
      0);
}

TEST_CASE("a wrong JSON type for a kept field names the field path") {
  CHECK(
      decode_error<Pod>(R"({"metadata": {}, "status": {"conditions": [{"type": "A",)"
                        R"( "status": "True"}, {"status": "x"}, {"type": "C", "status": 5}]}})") ==
      "decoding Pod: status.conditions[2].status: expected string, got number");
  CHECK(decode_error<Pod>(R"({"metadata": "x"})") ==
        "decoding Pod: metadata: expected object, got string");
  CHECK(decode_error<Pod>(R"({"metadata": {"labels": {"app": 1}}})") ==
        "decoding Pod: metadata.labels[app]: expected string, got number");
  CHECK(decode_error<Pod>(R"({"metadata": {"finalizers": ["a", true]}})") ==
        "decoding Pod: metadata.finalizers[1]: expected string, got boolean");
  CHECK(decode_error<Pod>(R"({"metadata": {"ownerReferences": {}}})") ==
        "decoding Pod: metadata.ownerReferences: expected array, got object");
  CHECK(decode_error<Pod>(R"({"metadata": {"ownerReferences": [{"controller": "yes"}]}})") ==
        "decoding Pod: metadata.ownerReferences[0].controller: expected boolean, got string");
  CHECK(decode_error<Pod>(R"({"metadata": {"ownerReferences": ["x"]}})") ==
        "decoding Pod: metadata.ownerReferences[0]: expected object, got string");
  CHECK(decode_error<Pod>(R"([1])") == "decoding Pod: expected object, got array");
}

TEST_CASE("an object without metadata is an error") {
  CHECK(decode_error<Pod>(R"({"spec": {"nodeName": "n"}})") ==
        "decoding Pod: missing required field \"metadata\" (Pod without it)");
}

TEST_CASE("invalid and truncated JSON are errors") {
  CHECK(decode_error<Pod>(R"({"metadata": {]})").find("decoding Pod: invalid JSON at byte") == 0);
  CHECK(decode_error<Pod>(R"({"metadata": {"name": "a"})").find("truncated JSON") !=
        std::string::npos);
  CHECK(decode_error<Pod>(R"({"metadata": {}} x)").find("invalid JSON") != std::string::npos);
  CHECK(decode_error<Pod>("").find("truncated JSON") != std::string::npos);
  CHECK(decode_error<Pod>("{\"metadata\": {\"name\": \"\xff\"}}").find("invalid JSON") !=
        std::string::npos);
}

TEST_CASE("deep unknown subtrees are skipped (Boost.JSON's default depth limit of 32 is raised)") {
  std::string deep = R"({"metadata": {"name": "deep"}, "spec": {"x": )";
  for (int i = 0; i < 200; ++i) deep += "[{\"a\":";
  deep += "1";
  for (int i = 0; i < 200; ++i) deep += "}]";
  deep += "}}";
  CHECK(decode<Pod>(deep).metadata.name == "deep");
}

TEST_CASE("a DOM value decodes like its text") {
  const auto value = boost::json::parse(R"({"metadata": {"name": "a", "generation": 3}})");
  const auto pod = decode_value<Pod>(value);
  CHECK(pod.metadata.name == "a");
  CHECK(pod.metadata.generation == 3);
  CHECK_THROWS_AS(decode_value<Pod>(boost::json::parse(R"({"metadata": 1})")), DecodeError);
}

TEST_CASE("a copied Pod owns its boxed container states") {
  const auto pod =
      decode<Pod>(R"({"metadata": {"name": "a"}, "status": {"containerStatuses": [{"name": "c",)"
                  R"( "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}})");
  Pod copy = pod;
  auto& terminated = copy.status.container_statuses.at(0).state.terminated;
  REQUIRE(terminated.has_value());
  terminated->exit_code = 1;
  CHECK(pod.status.container_statuses[0].state.terminated->exit_code == 137);
  CHECK(terminated->reason == "OOMKilled");
  copy = pod;
  CHECK(copy.status.container_statuses[0].state.terminated->exit_code == 137);
  CHECK_FALSE(copy.status.container_statuses[0].state.running);
  terminated.reset();
  CHECK_FALSE(terminated.has_value());
}

// metadata.managedFields as kube-apiserver writes them after `kubectl create` and a scale.
constexpr const char* kManagedFields = R"("managedFields": [
    {"manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1",
     "time": "2026-11-30T06:45:22Z", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                  "f:spec": {"f:selector": {}, "f:strategy": {"f:type": {}},
                             "f:template": {"f:spec": {"f:replicas": {}}}}}},
    {"manager": "replica-guard", "operation": "Update", "apiVersion": "apps/v1",
     "time": "2026-11-30T06:46:00Z", "fieldsType": "FieldsV1", "subresource": "scale",
     "fieldsV1": {"f:spec": {"f:replicas": {}}}}])";

TEST_CASE("a Deployment keeps who owns spec.replicas from its managedFields") {
  const auto deployment =
      decode<Deployment>(std::string(R"({"metadata": {"name": "web", )") + kManagedFields + "}}");
  const auto& managed = deployment.metadata.managed_fields;
  REQUIRE(managed.size() == 2);
  CHECK(managed[0].manager == "kubectl-create");
  CHECK(managed[0].subresource.empty());
  CHECK_FALSE(managed[0].owns_spec_replicas());  // f:replicas under f:template is not spec's
  CHECK(managed[1].operation == "Update");
  CHECK(managed[1].subresource == "scale");
  CHECK(managed[1].owns_spec_replicas());
  CHECK(owns_spec_replicas(managed, "replica-guard"));
  CHECK_FALSE(owns_spec_replicas(managed, "kubectl-create"));
  CHECK_FALSE(owns_spec_replicas(managed, "kubectl"));
}

TEST_CASE("a Pod's managedFields are skipped, not kept") {
  const auto pod =
      decode<Pod>(std::string(R"({"metadata": {"name": "p", )") + kManagedFields + "}}");
  CHECK(pod.metadata.name == "p");
  CHECK(pod.metadata.managed_fields.empty());
}

}  // namespace
}  // namespace rg::client
