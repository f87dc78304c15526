// core/v1 configuration and identity messages: Secret, ConfigMap, Namespace, ServiceAccount and
// the object references they use (k8s.io/api/core/v1/generated.proto).
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

constexpr FieldSpec kObjectReferenceFields[] = {
    scalar(1, "kind", K::kString),       scalar(2, "namespace", K::kString),
    scalar(3, "name", K::kString),       scalar(4, "uid", K::kString),
    scalar(5, "apiVersion", K::kString), scalar(6, "resourceVersion", K::kString),
    scalar(7, "fieldPath", K::kString),
};

constexpr FieldSpec kLocalObjectReferenceFields[] = {
    scalar(1, "name", K::kString),
};

constexpr FieldSpec kSecretFields[] = {
    message(1, "metadata", kObjectMeta),
    scalar(2, "data", K::kBytesMap),
    scalar(3, "type", K::kString),
    scalar(4, "stringData", K::kStringMap),
    scalar(5, "immutable", K::kBool, kEmitZero),
};

constexpr FieldSpec kConfigMapFields[] = {
    message(1, "metadata", kObjectMeta),
    scalar(2, "data", K::kStringMap),
    scalar(3, "binaryData", K::kBytesMap),
    scalar(4, "immutable", K::kBool, kEmitZero),
};

constexpr FieldSpec kNamespaceSpecFields[] = {
    scalar(1, "finalizers", K::kString, kRepeated),
};
const MessageSpec kNamespaceSpec{"NamespaceSpec", kNamespaceSpecFields};

constexpr FieldSpec kNamespaceStatusFields[] = {
    scalar(1, "phase", K::kString),
};
const MessageSpec kNamespaceStatus{"NamespaceStatus", kNamespaceStatusFields};

constexpr FieldSpec kNamespaceFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kNamespaceSpec),
    message(3, "status", kNamespaceStatus),
};

constexpr FieldSpec kServiceAccountFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "secrets", kObjectReference, kRepeated),
    message(3, "imagePullSecrets", kLocalObjectReference, kRepeated),
    scalar(4, "automountServiceAccountToken", K::kBool, kEmitZero),
};

}  // namespace

const MessageSpec kObjectReference{"ObjectReference", kObjectReferenceFields};
const MessageSpec kLocalObjectReference{"LocalObjectReference", kLocalObjectReferenceFields};
const MessageSpec kSecret{"Secret", kSecretFields};
const MessageSpec kConfigMap{"ConfigMap", kConfigMapFields};
const MessageSpec kNamespace{"Namespace", kNamespaceFields};
const MessageSpec kServiceAccount{"ServiceAccount", kServiceAccountFields};

}  // namespace rg::client::protobuf
