// Decoding Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) into
// boost::json values in the Kubernetes JSON shape, so code that handles JSON objects (kube-sim's
// handlers) can accept what typed client-go clients send since 1.32.
//
// Body layout: the 4 bytes "k8s\0", then a runtime.Unknown message {1: TypeMeta{1: apiVersion,
// 2: kind}, 2: raw (the object's own message), 3: contentEncoding, 4: contentType}.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "client/protobuf/protobuf_error.hpp"
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {

inline constexpr std::string_view kContentType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kMagic{"k8s\0", 4};

/// The runtime.Unknown envelope of a body; `raw` points into the body.
struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  std::string content_type;
};

/// Checks the magic and reads the envelope. Throws ProtobufError.
Envelope decode_envelope(std::string_view body);

/// The schema of a kind this decoder knows (Secret, ConfigMap, Namespace, ServiceAccount, Pod,
/// Service in v1; Deployment in apps/v1; TokenRequest and SelfSubjectReview in
/// authentication.k8s.io/v1; SelfSubjectAccessReview and SelfSubjectRulesReview in
/// authorization.k8s.io/v1; Eviction and PodDisruptionBudget in policy/v1;
/// HorizontalPodAutoscaler in autoscaling/v2 and autoscaling/v1; Role, ClusterRole, RoleBinding,
/// ClusterRoleBinding in rbac.authorization.k8s.io/v1; DeleteOptions in any group), or null.
const MessageSpec* find_schema(std::string_view api_version, std::string_view kind);

/// Decodes one message with `spec` into a JSON object. Unknown fields are skipped. Throws
/// ProtobufError naming the field path, the byte offset and the problem.
boost::json::object decode_message(std::string_view bytes, const MessageSpec& spec);

/// The whole body as the JSON object a client would have sent, with "apiVersion" and "kind".
/// Throws ProtobufError for malformed bodies, content encodings, and kinds without a schema.
boost::json::object decode_object(std::string_view body);

}  // namespace rg::client::protobuf
