// The protobuf schema tables: for each Kubernetes message, its field numbers (from the published
// k8s.io/api and apimachinery generated.proto files), the JSON names the API uses, and how each
// value maps to Kubernetes JSON. The decoder is driven by these tables alone.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rg::client::protobuf {

enum class FieldKind : std::uint8_t {
  kString,
  kBytes,  ///< JSON: base64 string
  kBool,
  kInt32,
  kInt64,
  kMessage,      ///< JSON: object
  kInline,       ///< an embedded struct whose fields JSON puts into the parent object
  kTime,         ///< metav1.Time {seconds, nanos} -> RFC 3339 string (seconds precision)
  kQuantity,     ///< resource.Quantity {string} -> string
  kIntOrString,  ///< intstr.IntOrString {type, intVal, strVal} -> number or string
  kRawJson,      ///< bytes holding JSON (RawExtension, FieldsV1) -> that JSON
  kStringMap,    ///< map<string, string>
  kBytesMap,     ///< map<string, bytes> -> values base64
  kQuantityMap,  ///< map<string, Quantity> -> values strings
};

inline constexpr std::uint8_t kRepeated = 1;
/// Keep a present zero value (pointer fields like replicas, and fields without omitempty). Other
/// scalars equal to their zero value are left out, as Go's omitempty does.
inline constexpr std::uint8_t kEmitZero = 2;

struct MessageSpec;

struct FieldSpec {
  std::uint32_t number;
  std::string_view json_name;
  FieldKind kind;
  std::uint8_t flags = 0;
  const MessageSpec* message = nullptr;  ///< for kMessage and kInline
};

struct MessageSpec {
  std::string_view name;
  std::span<const FieldSpec> fields;

  const FieldSpec* find(std::uint32_t number) const {
    for (const auto& f : fields) {
      if (f.number == number) return &f;
    }
    return nullptr;
  }
};

/// Table-building shorthands: scalar(n, "name", FieldKind::kString), message(n, "name", kSpec).
constexpr FieldSpec scalar(std::uint32_t number, std::string_view json, FieldKind kind,
                           std::uint8_t flags = 0) {
  return {number, json, kind, flags, nullptr};
}
constexpr FieldSpec message(std::uint32_t number, std::string_view json, const MessageSpec& spec,
                            std::uint8_t flags = 0) {
  return {number, json, FieldKind::kMessage, flags, &spec};
}
constexpr FieldSpec inlined(std::uint32_t number, const MessageSpec& spec) {
  return {number, {}, FieldKind::kInline, 0, &spec};
}

// meta/v1 (schemas_meta.cpp)
extern const MessageSpec kObjectMeta;
extern const MessageSpec kLabelSelector;
extern const MessageSpec kLabelSelectorRequirement;
extern const MessageSpec kDeleteOptions;
// core/v1 (schemas_core.cpp, schemas_pod.cpp)
extern const MessageSpec kObjectReference;
extern const MessageSpec kLocalObjectReference;
extern const MessageSpec kSecret;
extern const MessageSpec kConfigMap;
extern const MessageSpec kNamespace;
extern const MessageSpec kServiceAccount;
extern const MessageSpec kPod;
extern const MessageSpec kPodTemplateSpec;
extern const MessageSpec kService;  // (schemas_service_rbac.cpp)
// apps/v1 (schemas_apps.cpp)
extern const MessageSpec kDeployment;
// authentication.k8s.io/v1, authorization.k8s.io/v1 (schemas_auth.cpp)
extern const MessageSpec kTokenRequest;
extern const MessageSpec kTokenReview;
extern const MessageSpec kSelfSubjectReview;
extern const MessageSpec kSubjectAccessReview;
extern const MessageSpec kSelfSubjectAccessReview;
extern const MessageSpec kSelfSubjectRulesReview;
// policy/v1 (schemas_apps.cpp)
extern const MessageSpec kEviction;
extern const MessageSpec kPodDisruptionBudget;
// autoscaling/v2 and autoscaling/v1 (schemas_autoscaling.cpp)
extern const MessageSpec kHorizontalPodAutoscalerV2;
extern const MessageSpec kHorizontalPodAutoscalerV1;
// rbac.authorization.k8s.io/v1 (schemas_service_rbac.cpp)
extern const MessageSpec kRole;
extern const MessageSpec kClusterRole;
extern const MessageSpec kRoleBinding;
extern const MessageSpec kClusterRoleBinding;

}  // namespace rg::client::protobuf
