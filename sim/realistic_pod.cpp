// Builds realistic kubelet-managed Pods (see realistic_pod.hpp).
#include "sim/realistic_pod.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <cstdio>
#include <functional>

namespace rg::sim {
namespace json = boost::json;

namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed = 1469598103934665603ULL) {
  std::uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// The alphabet Kubernetes uses for generated name suffixes (no vowels, no 0/1/3).
constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string name_suffix(std::uint64_t value, std::size_t length) {
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    out += kSuffixAlphabet[value % kSuffixAlphabet.size()];
    value /= kSuffixAlphabet.size();
  }
  return out;
}

std::string ipv4(std::uint8_t a, std::uint64_t host) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a, static_cast<unsigned>((host >> 16) & 0xff),
                static_cast<unsigned>((host >> 8) & 0xff), static_cast<unsigned>(host & 0xff) | 1U);
  return buf;
}

json::object condition(std::string_view type, bool status, std::string_view at) {
  return {{"type", type},
          {"status", status ? "True" : "False"},
          {"lastProbeTime", nullptr},
          {"lastTransitionTime", at}};
}

// managedFields of kube-controller-manager: what the ReplicaSet controller wrote at create.
json::object controller_fields(const RealisticPodSpec& spec, std::string_view rs_uid) {
  json::object container{
      {".", json::object{}},
      {"f:image", json::object{}},
      {"f:imagePullPolicy", json::object{}},
      {"f:name", json::object{}},
      {"f:ports", json::object{{".", json::object{}},
                               {"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}",
                                json::object{{".", json::object{}},
                                             {"f:containerPort", json::object{}},
                                             {"f:name", json::object{}},
                                             {"f:protocol", json::object{}}}}}},
      {"f:resources",
       json::object{{".", json::object{}},
                    {"f:limits", json::object{{".", json::object{}}, {"f:memory", json::object{}}}},
                    {"f:requests", json::object{{".", json::object{}},
                                                {"f:cpu", json::object{}},
                                                {"f:memory", json::object{}}}}}},
      {"f:terminationMessagePath", json::object{}},
      {"f:terminationMessagePolicy", json::object{}}};
  json::object fields{
      {"f:metadata",
       json::object{
           {"f:generateName", json::object{}},
           {"f:labels", json::object{{".", json::object{}},
                                     {"f:app", json::object{}},
                                     {"f:pod-template-hash", json::object{}}}},
           {"f:ownerReferences",
            json::object{{".", json::object{}},
                         {"k:{\"uid\":\"" + std::string(rs_uid) + "\"}", json::object{}}}}}},
      {"f:spec",
       json::object{{"f:containers", json::object{{"k:{\"name\":\"" + spec.deployment + "\"}",
                                                   std::move(container)}}},
                    {"f:dnsPolicy", json::object{}},
                    {"f:enableServiceLinks", json::object{}},
                    {"f:restartPolicy", json::object{}},
                    {"f:schedulerName", json::object{}},
                    {"f:securityContext", json::object{}},
                    {"f:terminationGracePeriodSeconds", json::object{}}}}};
  return {{"manager", "kube-controller-manager"},
          {"operation", "Update"},
          {"apiVersion", "v1"},
          {"time", spec.creation_timestamp},
          {"fieldsType", "FieldsV1"},
          {"fieldsV1", std::move(fields)}};
}

// managedFields of the kubelet: the status subresource it keeps up to date.
json::object kubelet_fields(const RealisticPodSpec& spec, std::string_view pod_ip) {
  json::object conditions{{".", json::object{}}};
  for (std::string_view type :
       {"ContainersReady", "Initialized", "PodReadyToStartContainers", "Ready"}) {
    conditions.emplace("k:{\"type\":\"" + std::string(type) + "\"}",
                       json::object{{".", json::object{}},
                                    {"f:lastProbeTime", json::object{}},
                                    {"f:lastTransitionTime", json::object{}},
                                    {"f:status", json::object{}},
                                    {"f:type", json::object{}}});
  }
  json::object fields{
      {"f:status",
       json::object{{"f:conditions", std::move(conditions)},
                    {"f:containerStatuses", json::object{}},
                    {"f:hostIP", json::object{}},
                    {"f:hostIPs", json::object{}},
                    {"f:phase", json::object{}},
                    {"f:podIP", json::object{}},
                    {"f:podIPs",
                     json::object{{".", json::object{}},
                                  {"k:{\"ip\":\"" + std::string(pod_ip) + "\"}",
                                   json::object{{".", json::object{}}, {"f:ip", json::object{}}}}}},
                    {"f:startTime", json::object{}}}}};
  return {{"manager", "kubelet"},     {"operation", "Update"},
          {"apiVersion", "v1"},       {"time", spec.creation_timestamp},
          {"fieldsType", "FieldsV1"}, {"fieldsV1", std::move(fields)},
          {"subresource", "status"}};
}

json::object toleration(std::string_view key) {
  return {
      {"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}};
}

json::object projected_token_volume(std::string_view name) {
  json::array sources{
      json::object{
          {"serviceAccountToken", json::object{{"expirationSeconds", 3607}, {"path", "token"}}}},
      json::object{
          {"configMap", json::object{{"name", "kube-root-ca.crt"},
                                     {"items", json::array{json::object{{"key", "ca.crt"},
                                                                        {"path", "ca.crt"}}}}}}},
      json::object{
          {"downwardAPI",
           json::object{
               {"items", json::array{json::object{
                             {"path", "namespace"},
                             {"fieldRef", json::object{{"apiVersion", "v1"},
                                                       {"fieldPath", "metadata.namespace"}}}}}}}}}};
  return {{"name", name},
          {"projected", json::object{{"sources", std::move(sources)}, {"defaultMode", 420}}}};
}

}  // namespace

std::string uuid_from(std::string_view seed) {
  const std::uint64_t hi = fnv1a(seed);
  const std::uint64_t lo = fnv1a(seed, hi ^ 0x9e3779b97f4a7c15ULL);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0x0fff),
                static_cast<unsigned>(0x8000 | ((lo >> 48) & 0x3fff)),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string realistic_pod_name(const RealisticPodSpec& spec) {
  // A bijection on [0, 27^5): distinct ordinals below 14,348,907 get distinct names.
  constexpr std::uint64_t kSpace = 14348907;  // 27^5
  return spec.deployment + "-" + spec.template_hash + "-" +
         name_suffix((spec.ordinal % kSpace) * 2654435761ULL % kSpace, 5);
}

json::object realistic_pod(const RealisticPodSpec& spec) {
  const std::string name = realistic_pod_name(spec);
  const std::string rs_name = spec.deployment + "-" + spec.template_hash;
  const std::string rs_uid = spec.replica_set_uid.empty()
                                 ? uuid_from(spec.namespace_ + "/" + rs_name)
                                 : spec.replica_set_uid;
  const std::string volume = "kube-api-access-" + name_suffix(fnv1a(name), 5);
  const std::string pod_ip = ipv4(10, spec.ordinal + 2);
  const std::string host_ip = ipv4(172, fnv1a(spec.node_name) & 0xffff);
  const bool scheduled = !spec.node_name.empty();
  const std::string& at = spec.creation_timestamp;

  json::object metadata{
      {"name", name},
      {"generateName", rs_name + "-"},
      {"namespace", spec.namespace_},
      {"uid", uuid_from(spec.namespace_ + "/" + name)},
      {"creationTimestamp", at},
      {"labels", json::object{{"app", spec.deployment}, {"pod-template-hash", spec.template_hash}}},
      {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                   {"kind", "ReplicaSet"},
                                                   {"name", rs_name},
                                                   {"uid", rs_uid},
                                                   {"controller", true},
                                                   {"blockOwnerDeletion", true}}}},
      {"managedFields",
       json::array{controller_fields(spec, rs_uid), kubelet_fields(spec, pod_ip)}}};

  json::object container{
      {"name", spec.deployment},
      {"image", spec.image},
      {"ports",
       json::array{json::object{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"resources", json::object{{"limits", json::object{{"memory", "256Mi"}}},
                                 {"requests", json::object{{"cpu", "100m"}, {"memory", "128Mi"}}}}},
      {"volumeMounts",
       json::array{json::object{{"name", volume},
                                {"readOnly", true},
                                {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"imagePullPolicy", "IfNotPresent"}};

  json::object pod_spec{{"volumes", json::array{projected_token_volume(volume)}},
                        {"containers", json::array{std::move(container)}},
                        {"restartPolicy", "Always"},
                        {"terminationGracePeriodSeconds", 30},
                        {"dnsPolicy", "ClusterFirst"},
                        {"serviceAccountName", "default"},
                        {"serviceAccount", "default"},
                        {"securityContext", json::object{}},
                        {"schedulerName", "default-scheduler"},
                        {"tolerations", json::array{toleration("node.kubernetes.io/not-ready"),
                                                    toleration("node.kubernetes.io/unreachable")}},
                        {"priority", 0},
                        {"enableServiceLinks", true},
                        {"preemptionPolicy", "PreemptLowerPriority"}};
  if (scheduled) pod_spec.emplace("nodeName", spec.node_name);

  json::object status{{"phase", scheduled ? (spec.ready ? "Running" : "Pending") : "Pending"},
                      {"qosClass", "Burstable"}};
  if (scheduled) {
    status.emplace("conditions", json::array{condition("Initialized", true, at),
                                             condition("Ready", spec.ready, at),
                                             condition("ContainersReady", spec.ready, at),
                                             condition("PodScheduled", true, at)});
    status.emplace("hostIP", host_ip);
    status.emplace("hostIPs", json::array{json::object{{"ip", host_ip}}});
    status.emplace("podIP", pod_ip);
    status.emplace("podIPs", json::array{json::object{{"ip", pod_ip}}});
    status.emplace("startTime", at);
    json::object state =
        spec.ready ? json::object{{"running", json::object{{"startedAt", at}}}}
                   : json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}};
    status.emplace("containerStatuses",
                   json::array{json::object{
                       {"name", spec.deployment},
                       {"state", std::move(state)},
                       {"lastState", json::object{}},
                       {"ready", spec.ready},
                       {"restartCount", 0},
                       {"image", spec.image},
                       {"imageID", "registry.example/web@sha256:" + std::string(64, 'a')},
                       {"containerID", "containerd://" + uuid_from(name + "/c").substr(0, 8) +
                                           std::string(56, 'f')},
                       {"started", spec.ready}}});
  } else {
    status.emplace("conditions", json::array{json::object{{"type", "PodScheduled"},
                                                          {"status", "False"},
                                                          {"lastProbeTime", nullptr},
                                                          {"lastTransitionTime", at},
                                                          {"reason", "Unschedulable"}}});
  }

  return {{"metadata", std::move(metadata)},
          {"spec", std::move(pod_spec)},
          {"status", std::move(status)}};
}

}  // namespace rg::sim
