// Tests of the protobuf decoder: the observed DeleteOptions body, hand-encoded bodies of every
// supported kind as client-go writes them, unknown fields, merge rules, and malformed input.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>

#include "client/config/base64.hpp"
#include "client/protobuf/decoder.hpp"
#include "test/client/protobuf/encoder.hpp"

using namespace rg::client::protobuf;
using rg::client::base64_encode;
using rg::test::Encoder;
using rg::test::envelope;
using rg::test::new_object_meta;
namespace json = boost::json;

namespace {

json::value decoded(const std::string& body) { return decode_object(body); }

json::value expected(std::string_view text) { return json::parse(text); }

Encoder int_or_string(std::int32_t n) { return Encoder().varint(1, 0).varint(2, n); }
Encoder int_or_string(std::string_view s) { return Encoder().varint(1, 1).bytes(3, s); }
Encoder quantity(std::string_view s) { return Encoder().bytes(1, s); }
Encoder time_at(std::int64_t seconds) {
  return Encoder().varint(1, static_cast<std::uint64_t>(seconds)).varint(2, 0);
}

/// The ProtobufError decoding `body` throws.
ProtobufError error_of(const std::string& body) {
  try {
    decode_object(body);
  } catch (const ProtobufError& e) {
    return e;
  }
  FAIL("decoded without error");
  return ProtobufError("", 0);
}

/// The body `kubectl create deployment web --image=nginx` sends, plus the fields a realistic
/// manifest adds (ports, env, resources, probes, volumes, a rolling update strategy).
std::string deployment_body() {
  Encoder container;
  container.bytes(1, "nginx").bytes(2, "nginx").bytes(5, "");
  container.message(
      6, Encoder().bytes(1, "http").varint(2, 0).varint(3, 80).bytes(4, "TCP").bytes(5, ""));
  container.message(
      7, Encoder()
             .bytes(1, "POD_NAME")
             .bytes(2, "")
             .message(3, Encoder().message(1, Encoder().bytes(1, "v1").bytes(2, "metadata.name"))));
  container.message(7, Encoder().bytes(1, "MODE").bytes(2, "fast"));
  container.message(8,
                    Encoder().message(1, Encoder().bytes(1, "cpu").message(2, quantity("500m"))));
  container.message(11, Encoder()
                            .message(1, Encoder().message(2, Encoder()
                                                                 .bytes(1, "/healthz")
                                                                 .message(2, int_or_string("http"))
                                                                 .bytes(3, "")
                                                                 .bytes(4, "HTTP")))
                            .varint(2, 0)
                            .varint(3, 1)
                            .varint(4, 10)
                            .varint(5, 1)
                            .varint(6, 3));
  container.bytes(13, "/dev/termination-log").bytes(14, "Always");
  container.varint(16, 0).varint(17, 0).varint(18, 0).bytes(20, "File");

  Encoder volume;
  volume.bytes(1, "config")
      .message(2, Encoder().message(
                      19, Encoder().message(1, Encoder().bytes(1, "web-config")).varint(3, 420)));

  Encoder pod_spec;
  pod_spec.message(1, volume).message(2, container).bytes(3, "Always").bytes(6, "ClusterFirst");
  Encoder template_meta;
  template_meta.bytes(1, "").entry(11, "app", "web").bytes(8, "");
  Encoder strategy;
  strategy.bytes(1, "RollingUpdate")
      .message(2, Encoder().message(1, int_or_string(1)).message(2, int_or_string("25%")));
  Encoder spec;
  spec.varint(1, 1)
      .message(2, Encoder().entry(1, "app", "web"))
      .message(3, Encoder().message(1, template_meta).message(2, pod_spec))
      .message(4, strategy)
      .varint(5, 0)
      .varint(6, 0)
      .varint(7, 0);
  Encoder status;
  status.varint(1, 0).varint(2, 0).varint(3, 0).varint(4, 0).varint(5, 0).varint(7, 0);
  Encoder deployment;
  deployment.message(1, new_object_meta("web").entry(11, "app", "web"))
      .message(2, spec)
      .message(3, status);
  return envelope("apps/v1", "Deployment", deployment);
}

}  // namespace

TEST_CASE("the observed DeleteOptions body of helm uninstall") {
  constexpr char kObserved[] = "k8s\x00\n\x13\n\x02v1\x12\rDeleteOptions\x12\x00\x1a\x00\"\x00";
  std::string body(kObserved, sizeof kObserved - 1);
  Envelope e = decode_envelope(body);
  CHECK(e.api_version == "v1");
  CHECK(e.kind == "DeleteOptions");
  CHECK(e.raw.empty());
  CHECK(e.content_encoding.empty());
  CHECK(e.content_type.empty());
  CHECK(decoded(body) == expected(R"({"apiVersion":"v1","kind":"DeleteOptions"})"));
}

TEST_CASE("DeleteOptions keeps present zero values") {
  Encoder options;
  options.varint(1, 0)
      .message(2, Encoder().bytes(1, "uid-1").bytes(2, "7"))
      .bytes(4, "Background")
      .bytes(5, "All");
  CHECK(decoded(envelope("meta.k8s.io/v1", "DeleteOptions", options)) ==
        expected(R"({"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","gracePeriodSeconds":0,
                     "preconditions":{"uid":"uid-1","resourceVersion":"7"},
                     "propagationPolicy":"Background","dryRun":["All"]})"));
}

TEST_CASE("helm's release Secret") {
  std::string release("\x1f\x8b\x08\x00\xff\x00payload", 13);
  Encoder meta = new_object_meta("sh.helm.release.v1.demo.v1", "default");
  meta.entry(11, "name", "demo").entry(11, "owner", "helm").entry(11, "status", "deployed");
  meta.entry(11, "version", "1");
  Encoder secret;
  secret.message(1, meta)
      .entry(2, "release", release)
      .entry(2, "empty", "")
      .message(2, Encoder().bytes(1, "no-value"))
      .bytes(3, "helm.sh/release.v1");
  json::object out = decode_object(envelope("v1", "Secret", secret));
  CHECK(json::value(out) == expected(R"({"apiVersion":"v1","kind":"Secret",
          "metadata":{"name":"sh.helm.release.v1.demo.v1","namespace":"default",
                      "labels":{"name":"demo","owner":"helm","status":"deployed","version":"1"}},
          "data":{"release":")" + base64_encode(release) +
                                     R"(","empty":"","no-value":""},
          "type":"helm.sh/release.v1"})"));
}

TEST_CASE("ConfigMap, Namespace and ServiceAccount") {
  Encoder config_map;
  config_map.message(1, new_object_meta("settings", "apps"))
      .entry(2, "mode", "fast")
      .entry(3, "blob", std::string("\x00\x01\x02", 3))
      .varint(4, 0);
  CHECK(decoded(envelope("v1", "ConfigMap", config_map)) ==
        expected(R"({"apiVersion":"v1","kind":"ConfigMap",
                     "metadata":{"name":"settings","namespace":"apps"},
                     "data":{"mode":"fast"},"binaryData":{"blob":"AAEC"},"immutable":false})"));

  Encoder ns;
  ns.message(1, new_object_meta("team-a"))
      .message(2, Encoder().bytes(1, "kubernetes"))
      .message(3, Encoder().bytes(1, ""));
  CHECK(decoded(envelope("v1", "Namespace", ns)) ==
        expected(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"},
                     "spec":{"finalizers":["kubernetes"]},"status":{}})"));

  Encoder sa;
  sa.message(1, new_object_meta("builder", "ci"))
      .message(2, Encoder().bytes(1, "").bytes(3, "builder-token"))
      .message(3, Encoder().bytes(1, "regcred"))
      .varint(4, 0);
  CHECK(decoded(envelope("v1", "ServiceAccount", sa)) ==
        expected(R"({"apiVersion":"v1","kind":"ServiceAccount",
                     "metadata":{"name":"builder","namespace":"ci"},
                     "secrets":[{"name":"builder-token"}],"imagePullSecrets":[{"name":"regcred"}],
                     "automountServiceAccountToken":false})"));
}

TEST_CASE("kubectl create service and expose: Service") {
  Encoder spec;
  spec.message(1, Encoder()
                      .bytes(1, "http")
                      .bytes(2, "TCP")
                      .varint(3, 80)
                      .message(4, int_or_string("web"))
                      .varint(5, 0))
      .entry(2, "app", "web")
      .bytes(3, "")
      .bytes(4, "ClusterIP")
      .bytes(7, "None")
      .bytes(22, "Cluster");
  Encoder service;
  service.message(1, new_object_meta("web", "default")).message(2, spec).message(3, Encoder());
  CHECK(decoded(envelope("v1", "Service", service)) ==
        expected(R"({"apiVersion":"v1","kind":"Service",
                     "metadata":{"name":"web","namespace":"default"},
                     "spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":"web"}],
                             "selector":{"app":"web"},"type":"ClusterIP","sessionAffinity":"None",
                             "internalTrafficPolicy":"Cluster"}})"));
}

TEST_CASE("kubectl create role and rolebinding: RBAC kinds") {
  Encoder rule;
  rule.bytes(1, "get").bytes(1, "list").bytes(2, "").bytes(3, "pods");
  Encoder role;
  role.message(1, new_object_meta("reader", "ci")).message(2, rule);
  CHECK(decoded(envelope("rbac.authorization.k8s.io/v1", "Role", role)) ==
        expected(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
                     "metadata":{"name":"reader","namespace":"ci"},
                     "rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})"));

  Encoder binding;
  binding.message(1, new_object_meta("reader", "ci"))
      .message(2, Encoder().bytes(1, "ServiceAccount").bytes(2, "").bytes(3, "bot").bytes(4, "ci"))
      .message(
          3,
          Encoder().bytes(1, "rbac.authorization.k8s.io").bytes(2, "ClusterRole").bytes(3, "view"));
  CHECK(decoded(envelope("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", binding)) ==
        expected(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
                     "metadata":{"name":"reader","namespace":"ci"},
                     "subjects":[{"kind":"ServiceAccount","name":"bot","namespace":"ci"}],
                     "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
                                "name":"view"}})"));
  CHECK(find_schema("rbac.authorization.k8s.io/v1", "ClusterRole") == &kClusterRole);
  CHECK(find_schema("v1", "Role") == nullptr);
}

TEST_CASE("kubectl create token: TokenRequest") {
  Encoder request;
  request.message(1, new_object_meta(""))
      .message(2, Encoder().bytes(1, "api").varint(4, 600))
      .message(3, Encoder().bytes(1, "").bytes(2, ""));
  CHECK(decoded(envelope("authentication.k8s.io/v1", "TokenRequest", request)) ==
        expected(R"({"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1",
                     "metadata":{},"spec":{"audiences":["api"],"expirationSeconds":600},
                     "status":{}})"));

  Encoder bound;
  bound.message(
      2, Encoder().message(
             3, Encoder().bytes(1, "Pod").bytes(2, "v1").bytes(3, "web-1").bytes(4, "pod-uid")));
  CHECK(decoded(envelope("authentication.k8s.io/v1", "TokenRequest", bound)).at("spec") ==
        expected(R"({"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web-1",
                                       "uid":"pod-uid"}})"));
}

TEST_CASE("kubectl auth can-i: SelfSubjectAccessReview") {
  Encoder attributes;
  attributes.bytes(1, "kube-system").bytes(2, "list").bytes(3, "").bytes(4, "").bytes(5, "pods");
  attributes.bytes(6, "").bytes(7, "");
  attributes.message(9, Encoder().bytes(1, "app=web"));
  Encoder review;
  review.message(1, new_object_meta(""))
      .message(2, Encoder().message(1, attributes))
      .message(3, Encoder().varint(1, 0).bytes(2, "").bytes(3, "").varint(4, 0));
  CHECK(decoded(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", review)) ==
        expected(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
                     "metadata":{},
                     "spec":{"resourceAttributes":{"namespace":"kube-system","verb":"list",
                             "resource":"pods","labelSelector":{"rawSelector":"app=web"}}},
                     "status":{"allowed":false}})"));
}

TEST_CASE("kubectl auth can-i --list: SelfSubjectRulesReview, its status ignored") {
  Encoder review;
  review.message(1, new_object_meta(""))
      .message(2, Encoder().bytes(1, "team"))
      .message(3, Encoder().varint(3, 0).bytes(4, ""));
  CHECK(decoded(envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview", review)) ==
        expected(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview",
                     "metadata":{},"spec":{"namespace":"team"}})"));
}

TEST_CASE("kubectl auth whoami and kubectl drain: SelfSubjectReview and Eviction") {
  Encoder review;
  review.message(1, new_object_meta("")).message(2, Encoder().message(1, Encoder().bytes(1, "")));
  CHECK(decoded(envelope("authentication.k8s.io/v1", "SelfSubjectReview", review)) ==
        expected(R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview",
                     "metadata":{},"status":{"userInfo":{}}})"));

  Encoder eviction;
  eviction.message(1, new_object_meta("web-1", "default"))
      .message(2, Encoder().varint(1, 30).bytes(4, "Background"));
  CHECK(decoded(envelope("policy/v1", "Eviction", eviction)) ==
        expected(R"({"apiVersion":"policy/v1","kind":"Eviction",
                     "metadata":{"name":"web-1","namespace":"default"},
                     "deleteOptions":{"gracePeriodSeconds":30,
                                      "propagationPolicy":"Background"}})"));
}

TEST_CASE("kubectl create pdb: PodDisruptionBudget") {
  Encoder selector;
  selector.entry(1, "app", "web");
  Encoder spec;
  spec.message(1, int_or_string(1)).message(2, selector);
  Encoder pdb;
  pdb.message(1, new_object_meta("web", "default"))
      .message(2, spec)
      .message(3, Encoder().varint(3, 0).varint(4, 0).varint(5, 0).varint(6, 0));
  CHECK(decoded(envelope("policy/v1", "PodDisruptionBudget", pdb)) ==
        expected(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
                     "metadata":{"name":"web","namespace":"default"},
                     "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}},
                     "status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,
                               "expectedPods":0}})"));
  Encoder percent;
  percent.message(3, int_or_string("25%")).bytes(4, "AlwaysAllow");
  CHECK(decoded(envelope("policy/v1", "PodDisruptionBudget",
                         Encoder().message(1, new_object_meta("db")).message(2, percent)))
            .at("spec") ==
        expected(R"({"maxUnavailable":"25%","unhealthyPodEvictionPolicy":"AlwaysAllow"})"));
}

TEST_CASE("kubectl autoscale: HorizontalPodAutoscaler in autoscaling/v2 and v1") {
  Encoder target;
  target.bytes(1, "Deployment").bytes(2, "web").bytes(3, "apps/v1");
  Encoder cpu;  // a Resource metric at 80% average utilization
  cpu.bytes(1, "Resource")
      .message(
          4, Encoder().bytes(1, "cpu").message(2, Encoder().bytes(1, "Utilization").varint(4, 80)));
  Encoder memory;  // a Pods metric with an average value and a selector
  memory.bytes(1, "Pods").message(
      3, Encoder()
             .message(1, Encoder().bytes(1, "rps").message(2, Encoder().entry(1, "app", "web")))
             .message(2, Encoder().bytes(1, "AverageValue").message(3, quantity("10k"))));
  Encoder scale_down;
  scale_down.bytes(1, "Min")
      .message(2, Encoder().bytes(1, "Percent").varint(2, 100).varint(3, 15))
      .varint(3, 0);
  Encoder spec;
  spec.message(1, target).varint(2, 2).varint(3, 5).message(4, cpu).message(4, memory).message(
      5, Encoder().message(2, scale_down));
  Encoder hpa;
  hpa.message(1, new_object_meta("web", "default"))
      .message(2, spec)
      .message(3, Encoder().varint(4, 0));
  CHECK(decoded(envelope("autoscaling/v2", "HorizontalPodAutoscaler", hpa)) ==
        expected(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
          "metadata":{"name":"web","namespace":"default"},
          "spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},
                  "minReplicas":2,"maxReplicas":5,
                  "metrics":[
                    {"type":"Resource","resource":{"name":"cpu",
                      "target":{"type":"Utilization","averageUtilization":80}}},
                    {"type":"Pods","pods":{
                      "metric":{"name":"rps","selector":{"matchLabels":{"app":"web"}}},
                      "target":{"type":"AverageValue","averageValue":"10k"}}}],
                  "behavior":{"scaleDown":{"selectPolicy":"Min",
                    "policies":[{"type":"Percent","value":100,"periodSeconds":15}],
                    "stabilizationWindowSeconds":0}}},
          "status":{"desiredReplicas":0}})"));

  Encoder v1_spec;
  v1_spec.message(1, target).varint(2, 1).varint(3, 3).varint(4, 50);
  CHECK(decoded(envelope("autoscaling/v1", "HorizontalPodAutoscaler",
                         Encoder().message(1, new_object_meta("web")).message(2, v1_spec)))
            .at("spec") ==
        expected(R"({"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},
                     "minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":50})"));
}

TEST_CASE("kubectl create deployment") {
  CHECK(decoded(deployment_body()) == expected(R"({
    "apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","labels":{"app":"web"}},
    "spec":{
      "replicas":1,
      "selector":{"matchLabels":{"app":"web"}},
      "template":{
        "metadata":{"labels":{"app":"web"}},
        "spec":{
          "volumes":[{"name":"config","configMap":{"name":"web-config","defaultMode":420}}],
          "containers":[{
            "name":"nginx","image":"nginx",
            "ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],
            "env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1",
                                                               "fieldPath":"metadata.name"}}},
                   {"name":"MODE","value":"fast"}],
            "resources":{"limits":{"cpu":"500m"}},
            "readinessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},
                              "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,
                              "failureThreshold":3},
            "terminationMessagePath":"/dev/termination-log","imagePullPolicy":"Always",
            "terminationMessagePolicy":"File"}],
          "restartPolicy":"Always","dnsPolicy":"ClusterFirst"}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":"25%"}},
      "revisionHistoryLimit":0},
    "status":{}})"));
}

TEST_CASE("Pod with owner references, times, tolerations and managed fields") {
  Encoder meta;
  meta.bytes(1, "web-1").bytes(3, "default").bytes(5, "uid-1").bytes(6, "42").varint(7, 3);
  meta.message(8, time_at(1795964645)).message(9, time_at(1795964700)).varint(10, 30);
  meta.message(13, Encoder()
                       .bytes(1, "ReplicaSet")
                       .bytes(3, "web-abc")
                       .bytes(4, "rs-uid")
                       .bytes(5, "apps/v1")
                       .varint(6, 1)
                       .varint(7, 1));
  meta.bytes(14, "example.com/cleanup");
  meta.message(17, Encoder()
                       .bytes(1, "kubectl")
                       .bytes(2, "Update")
                       .bytes(3, "v1")
                       .message(4, time_at(0))
                       .bytes(6, "FieldsV1")
                       .message(7, Encoder().bytes(1, R"({"f:spec":{"f:nodeName":{}}})")));
  Encoder spec;
  spec.message(2, Encoder().bytes(1, "app").bytes(2, "busybox").bytes(3, "sleep").bytes(3, "1d"));
  spec.varint(4, 30).bytes(10, "n1").varint(25, 0).varint(30, 0);
  spec.message(22, Encoder()
                       .bytes(1, "node.kubernetes.io/not-ready")
                       .bytes(2, "Exists")
                       .bytes(3, "")
                       .bytes(4, "NoExecute")
                       .varint(5, 300));
  Encoder status;
  status.bytes(1, "Running").bytes(6, "10.0.0.5").message(7, time_at(1795964646));
  Encoder pod;
  pod.message(1, meta).message(2, spec).message(3, status);
  CHECK(decoded(envelope("v1", "Pod", pod)) == expected(R"({
    "apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"web-1","namespace":"default","uid":"uid-1","resourceVersion":"42",
      "generation":3,"creationTimestamp":"2026-11-29T15:04:05Z",
      "deletionTimestamp":"2026-11-29T15:05:00Z","deletionGracePeriodSeconds":30,
      "ownerReferences":[{"kind":"ReplicaSet","name":"web-abc","uid":"rs-uid",
                          "apiVersion":"apps/v1","controller":true,"blockOwnerDeletion":true}],
      "finalizers":["example.com/cleanup"],
      "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1",
                        "time":"1970-01-01T00:00:00Z","fieldsType":"FieldsV1",
                        "fieldsV1":{"f:spec":{"f:nodeName":{}}}}]},
    "spec":{"containers":[{"name":"app","image":"busybox","command":["sleep","1d"]}],
            "terminationGracePeriodSeconds":30,"nodeName":"n1","priority":0,
            "enableServiceLinks":false,
            "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists",
                            "effect":"NoExecute","tolerationSeconds":300}]},
    "status":{"phase":"Running","podIP":"10.0.0.5","startTime":"2026-11-29T15:04:06Z"}})"));
}

TEST_CASE("negative int32 and int64 varints") {
  Encoder spec;
  spec.varint(1, static_cast<std::uint64_t>(std::int64_t{-1}));
  Encoder options;
  options.varint(1, static_cast<std::uint64_t>(std::int64_t{-5}));
  CHECK(decode_message(Encoder().message(2, spec).str(), kDeployment).at("spec") ==
        expected(R"({"replicas":-1})"));
  CHECK(decode_message(options.str(), kDeleteOptions) == expected(R"({"gracePeriodSeconds":-5})"));
}

TEST_CASE("unknown fields of every wire type are skipped") {
  Encoder plain;
  plain.message(1, new_object_meta("x")).bytes(3, "Opaque");
  Encoder noisy;
  noisy.varint(99, 12345).fixed64(98, 1).fixed32(97, 2).bytes(96, "ignored");
  noisy.message(1, new_object_meta("x").varint(100, 1).bytes(101, "z").fixed32(102, 3));
  noisy.bytes(3, "Opaque").message(4000, Encoder().varint(1, 1));
  CHECK(decoded(envelope("v1", "Secret", noisy)) == decoded(envelope("v1", "Secret", plain)));
}

TEST_CASE("protobuf merge rules: last scalar wins, singular messages merge, lists append") {
  Encoder secret;
  secret.bytes(3, "first").bytes(3, "second");
  secret.message(1, Encoder().bytes(1, "name")).message(1, Encoder().bytes(3, "ns"));
  secret.message(1, Encoder().bytes(14, "a")).message(1, Encoder().bytes(14, "b"));
  CHECK(decoded(envelope("v1", "Secret", secret)) ==
        expected(R"({"apiVersion":"v1","kind":"Secret","type":"second",
                     "metadata":{"name":"name","namespace":"ns","finalizers":["a","b"]}})"));
  // A later zero value clears an earlier one, as the last occurrence wins.
  Encoder cleared;
  cleared.bytes(3, "Opaque").bytes(3, "");
  CHECK(decoded(envelope("v1", "Secret", cleared)) ==
        expected(R"({"apiVersion":"v1","kind":"Secret"})"));
}

TEST_CASE("strings are coerced to valid UTF-8 like Go's encoding/json") {
  Encoder meta;
  meta.bytes(1, "caf\xc3\xa9")  // valid two-byte sequence kept
      .entry(11, "k\xff",
             "a\xff"
             "b\xe2\x82")                                    // stray and truncated bytes
      .entry(12, "emoji", "\xf0\x9f\x99\x82 \xed\xa0\x80");  // valid 4-byte, then a surrogate
  json::value out = decode_message(Encoder().message(1, meta).str(), kSecret);
  CHECK(out == expected(R"({"metadata":{"name":"café",
                                        "labels":{"k\uFFFD":"a\uFFFDb\uFFFD\uFFFD"},
                                        "annotations":{"emoji":"🙂 \uFFFD\uFFFD\uFFFD"}}})"));
  // The result serializes to valid JSON that parses back to itself.
  CHECK(json::parse(json::serialize(out)) == out);
}

TEST_CASE("envelope details and schema lookup") {
  Encoder unknown;
  unknown.message(1, Encoder().bytes(1, "v1").bytes(2, "ConfigMap"))
      .bytes(2, Encoder().message(1, new_object_meta("c")).str())
      .bytes(4, "application/vnd.kubernetes.protobuf");
  Envelope e = decode_envelope(std::string("k8s\0", 4) + unknown.str());
  CHECK(e.kind == "ConfigMap");
  CHECK(e.content_type == "application/vnd.kubernetes.protobuf");
  CHECK(find_schema("v1", "Pod") == &kPod);
  CHECK(find_schema("apps/v1", "DeleteOptions") == &kDeleteOptions);
  CHECK(find_schema("apps/v1", "Pod") == nullptr);
  CHECK(find_schema("v1", "Node") == nullptr);
}

TEST_CASE("malformed bodies give clear errors") {
  std::string magic("k8s\0", 4);
  CHECK(std::string(error_of("{\"kind\":\"Secret\"}").what()) ==
        "invalid protobuf body: not a Kubernetes protobuf body: it must start with the 4 bytes "
        "\"k8s\\x00\" (at byte 0)");
  CHECK(error_of(magic + "\x0a").problem() == "truncated varint");
  CHECK(error_of(magic + "\x0a\x05\x0a\x01").problem() ==
        "field 1 has length 5, past the end of its message (2 bytes left)");
  CHECK(error_of(magic + "\x0b").problem() == "field 1 has unsupported wire type 3");
  CHECK(error_of(magic + std::string("\x02\x00", 2)).problem() == "invalid field number 0");
  CHECK(error_of(magic + "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01").problem() ==
        "varint longer than 10 bytes");
  CHECK(error_of(magic + "\x09\x01\x02").problem() == "field 1 needs 8 bytes but only 2 are left");
  CHECK(error_of(magic).problem() == "the envelope has no kind (typeMeta.kind)");
  CHECK(std::string(error_of(envelope("v1", "Node", Encoder())).what()) ==
        "invalid protobuf body: no protobuf schema for v1 Node; send it as application/json (at "
        "byte 4)");

  Encoder gzip;
  gzip.message(1, Encoder().bytes(1, "v1").bytes(2, "Secret")).bytes(2, "").bytes(3, "gzip");
  CHECK(error_of(magic + gzip.str()).problem() == "content encoding \"gzip\" is not supported");

  // Errors inside the object name the field path.
  ProtobufError wrong_type =
      error_of(envelope("v1", "Secret", Encoder().message(1, Encoder().varint(1, 5))));
  CHECK(wrong_type.path() == "Secret.metadata.name");
  CHECK(wrong_type.problem() == "field 1 is varint, expected length-delimited");

  Encoder truncated_meta;
  truncated_meta.bytes(1, std::string("\x0a\x10"
                                      "ab",
                                      4));
  std::string body = envelope("v1", "Secret", truncated_meta);
  ProtobufError past_end = error_of(body);
  CHECK(past_end.path() == "Secret.metadata");
  CHECK(past_end.problem() == "field 1 has length 16, past the end of its message (2 bytes left)");
  CHECK(past_end.offset() == body.find(std::string("\x0a\x10"
                                                   "ab",
                                                   4)));

  Encoder bad_container;
  bad_container.message(
      2, Encoder().message(2, Encoder().bytes(1, "ok")).message(2, Encoder().varint(2, 1)));
  ProtobufError in_list = error_of(envelope("v1", "Pod", bad_container));
  CHECK(in_list.path() == "Pod.spec.containers[1].image");

  // Inlined structs add no level to the path, as in JSON.
  Encoder bad_volume;
  bad_volume.message(
      2, Encoder().message(
             1, Encoder().message(
                    2, Encoder().message(19, Encoder().message(1, Encoder().varint(1, 3))))));
  CHECK(error_of(envelope("v1", "Pod", bad_volume)).path() == "Pod.spec.volumes[0].configMap.name");

  Encoder bad_json;
  bad_json.message(1, Encoder().message(17, Encoder().message(7, Encoder().bytes(1, "{nope"))));
  CHECK(
      error_of(envelope("v1", "Pod", bad_json)).problem().starts_with("embedded JSON is invalid"));

  Encoder far_future;
  far_future.message(1, Encoder().message(8, time_at(std::int64_t{1} << 40)));
  CHECK(error_of(envelope("v1", "Pod", far_future)).problem() ==
        "time 1099511627776 seconds is outside the years 1-9999");

  Encoder bad_int_or_string;
  bad_int_or_string.message(
      2, Encoder().message(4, Encoder().message(2, Encoder().message(1, Encoder().varint(1, 7)))));
  CHECK(error_of(envelope("apps/v1", "Deployment", bad_int_or_string)).path() ==
        "Deployment.spec.strategy.rollingUpdate.maxUnavailable");
}

TEST_CASE("every truncation and byte flip of a real body decodes or fails cleanly") {
  const std::string body = deployment_body();
  int failures = 0;
  auto try_decode = [&](const std::string& input) {
    try {
      decode_object(input);
    } catch (const ProtobufError&) {
      ++failures;
    }
  };
  for (std::size_t n = 0; n < body.size(); ++n) try_decode(body.substr(0, n));
  // Every prefix fails except the three that end on a field boundary of the envelope (after
  // typeMeta, after raw, after contentEncoding): protobuf fields are all optional.
  CHECK(failures == static_cast<int>(body.size()) - 3);
  for (std::size_t i = 0; i < body.size(); ++i) {
    for (unsigned char x : {0x01, 0x80, 0xff}) {
      std::string flipped = body;
      flipped[i] = static_cast<char>(static_cast<unsigned char>(flipped[i]) ^ x);
      try_decode(flipped);
    }
  }
}
